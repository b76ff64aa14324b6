// An example plugin whose schemas are Zod 4 schemas: Zod's `toJSONSchema`
// writes the JSON Schemas the host lists, and Zod parses the arguments
// before each handler runs (defaults filled in, refinements checked).
import { defineTool, z } from "mcp-wasm-sdk";

const Contact = z.object({
  name: z.string().trim().min(1).describe("Full name."),
  email: z.email().describe("Email address."),
  company: z.string().nullable().describe("Employer, or null if none."),
  tags: z.array(z.string().min(1)).max(5).default([]).describe("Up to five tags."),
  rank: z.union([z.int().min(1), z.string()]).optional().describe("A position, or a label such as \"vip\"."),
  location: z.tuple([z.number(), z.number()]).optional().describe("Latitude and longitude."),
  extra: z.record(z.string(), z.unknown()).optional().describe("Anything else, by name."),
});

defineTool(
  {
    name: "add_contact",
    title: "Add a contact",
    description: "Check a contact's details and return them normalized, with an id.",
    inputSchema: Contact,
    outputSchema: z.object({ id: z.string(), contact: Contact }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  // `contact.tags` is a string array even when the caller left it out: the
  // handler gets what Zod parsed.
  (contact) => ({ id: `${contact.name.toLowerCase().replace(/\s+/g, "-")}-${contact.tags.length}`, contact }),
);

defineTool(
  {
    name: "book_slot",
    title: "Book a slot",
    description: "Book a slot of whole hours in one day; `end` is after `start`.",
    inputSchema: z
      .object({
        start: z.int().min(0).max(23).describe("First hour, 0 to 23."),
        end: z.int().min(1).max(24).describe("Hour the slot ends, 1 to 24."),
      })
      // A rule JSON Schema cannot say: the host lets it through, Zod refuses it.
      .refine((slot) => slot.end > slot.start, { message: "end must be after start", path: ["end"] }),
    outputSchema: z.object({ hours: z.int() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  ({ start, end }) => ({ hours: end - start }),
);
