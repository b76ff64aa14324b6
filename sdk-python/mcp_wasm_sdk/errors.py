"""The exceptions a tool raises to fail a call, and how every exception maps to a WIT `tool-error` case."""

from __future__ import annotations


class ToolError(Exception):
    """Base of the exceptions that choose a `tool-error` case themselves."""

    kind = "failed"


class InvalidArguments(ToolError):
    """The arguments matched the schema but cannot be used (`invalid-arguments`)."""

    kind = "invalid-arguments"


class Denied(ToolError):
    """Access to a file, variable or other capability was denied (`denied`)."""

    kind = "denied"


class NotFound(ToolError):
    """No such resource or prompt (`not-found`, for resources and prompts;
    a tool that raises it fails as `failed`)."""

    kind = "not-found"


class Failed(ToolError):
    """Any other failure the model should see (`failed`)."""

    kind = "failed"


class ClientError(Exception):
    """A request to the MCP client (sampling, elicitation) got no answer.

    `kind` is the WIT `request-error` case: "unsupported", "denied",
    "rejected" or "failed"; `code` and `data` are set for "rejected" (the
    client's JSON-RPC error). Left uncaught, "denied" fails the call as
    `denied` and the others as `failed`.
    """

    def __init__(self, kind: str, message: str, code: int | None = None, data: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.data = data

    def __str__(self) -> str:
        code = f" (code {self.code})" if self.code is not None else ""
        return f"client request {self.kind}{code}: {self.args[0]}"


def classify(error: BaseException) -> tuple[str, str]:
    """The `tool-error` case and message for an exception a call raised.

    SDK exceptions choose their case and keep their message; a
    PermissionError is `denied`; anything else is `failed`, with the
    exception's type named so the model can tell a KeyError from a
    ZeroDivisionError.
    """
    if isinstance(error, ToolError):
        return error.kind, str(error)
    if isinstance(error, ClientError):
        return ("denied" if error.kind == "denied" else "failed"), str(error)
    named = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, PermissionError):
        return "denied", named
    return "failed", named
