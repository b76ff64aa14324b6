//! Classifies one incoming message (the bytes of a stdio line or an HTTP
//! body): exactly one JSON-RPC 2.0 message that rmcp accepts as it is, or the
//! JSON-RPC error that answers it. Both transports use [`check`], so they
//! treat every message the same way.
//!
//! rmcp drops some messages without an answer (text that is not JSON, invalid
//! UTF-8, lone surrogates, nesting deeper than the parser allows, a shape it
//! does not know, `params` that are not an object) and turns a request for a
//! known MCP method whose `params` do not fit into a custom request, which
//! it answers with `-32601 Method not found`, or drops optional `params`
//! that do not fit (a `tools/list` cursor that is not a string). [`check`]
//! finds all of these first, and names the request's `id` in the answer
//! whenever the id can be read.
//!
//! Upstream (rmcp 3.11.0): no issue asks rmcp to refuse a known method's
//! bad `params` with `-32602` or to keep lenient `params` strict; the id
//! rmcp leaves out of its `-32600` is part of
//! modelcontextprotocol/rust-sdk#825, and its silence on text that is not
//! JSON is a choice (modelcontextprotocol/rust-sdk#938). See [`super`].

#[allow(deprecated)]
// rmcp deprecates logging and resources/subscribe; clients still send them
use rmcp::model::{
    CallToolRequest, CancelTaskRequest, ClientJsonRpcMessage, ClientRequest, CompleteRequest,
    ConstString, DiscoverRequest, GetPromptRequest, GetSkillRequest, GetTaskRequest,
    InitializeRequest, JsonRpcMessage, JsonRpcRequest, ListPromptsRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, ListSkillsRequest, ListToolsRequest,
    PingRequest, ReadResourceDirectoryRequest, ReadResourceRequest, Request, RequestId,
    RequestNoParam, RequestOptionalParam, SetLevelRequest, SubscribeRequest,
    SubscriptionsListenRequest, UnsubscribeRequest, UpdateTaskRequest,
};
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// The largest message accepted, in bytes: a stdio line without its newline,
/// or an HTTP request body (64 MiB). Both transports enforce this one number.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// How much of a message longer than [`MAX_MESSAGE_BYTES`] is kept to find
/// its `id` in (64 KiB): enough when the id comes before the large `params`.
pub const ID_PREFIX_BYTES: usize = 64 << 10;

/// JSON-RPC's parse error: the text is not JSON (also invalid UTF-8, a lone
/// surrogate escape, or nesting deeper than the parser's limit of 128).
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's invalid request: JSON, but not one JSON-RPC message.
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC's invalid params: a known method with `params` of the wrong shape.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC's method not found: a request rmcp cannot read for a method it
/// does not know (rmcp answers the others itself).
pub const METHOD_NOT_FOUND: i32 = -32601;

/// The JSON-RPC error that answers a message [`check`] refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// The JSON-RPC error code.
    pub code: i32,
    /// A message that says what is wrong.
    pub message: String,
    /// The message's `id`, when one that rmcp would accept could be read.
    pub id: Option<RequestId>,
    /// The message is a notification (its `params` are wrong). JSON-RPC
    /// answers no notification: over stdio it is logged and dropped; over
    /// HTTP the status says it was refused.
    pub notification: bool,
    /// The request is for a method its revision does not have (2026-07-28
    /// removed it): over HTTP the status is 404, as SEP-2575 asks.
    pub not_found: bool,
}

impl Rejection {
    /// A rejection of a message that is not a notification.
    pub fn new(code: i32, message: String, id: Option<RequestId>) -> Rejection {
        Rejection {
            code,
            message,
            id,
            notification: false,
            not_found: false,
        }
    }

    /// The answer for a message longer than `limit` bytes, of which `prefix`
    /// is the start: the id is named when it appears in the prefix.
    pub fn too_long(prefix: &[u8], limit: usize) -> Rejection {
        Rejection::new(
            INVALID_REQUEST,
            format!("Invalid Request: the message is longer than {limit} bytes"),
            recover_id(prefix),
        )
    }

    /// The JSON-RPC error response, with `"id": null` when no id was read.
    pub fn to_json(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": { "code": self.code, "message": self.message },
        })
    }
}

/// Decides whether `bytes` is exactly one JSON-RPC 2.0 message that rmcp
/// will handle as what it is. Never panics, whatever the bytes.
///
/// - `Ok(message)`: rmcp's own [`ClientJsonRpcMessage`] deserialization of
///   `bytes` (so it succeeds by construction), and a request for a method
///   rmcp knows is never its custom request.
/// - `Err(rejection)`: the error to answer with. Its `id` is the message's
///   top-level `id` whenever that is a string or an integer (as rmcp reads
///   ids) and the text after it was read, even when the message fails later;
///   otherwise it is `None`. A notification rmcp cannot read is refused with
///   [`Rejection::notification`] set: JSON-RPC answers no notification.
///
/// The codes: [`PARSE_ERROR`] for bytes that are not one JSON text (syntax,
/// invalid UTF-8 anywhere, lone surrogate escapes, nesting deeper than 128,
/// trailing data); [`INVALID_REQUEST`] for JSON that is not one JSON-RPC
/// message (a batch, not an object, a bad `jsonrpc`, `id` or `method`, an
/// unknown combination of members); [`INVALID_PARAMS`] for a request for a
/// known method whose `params` do not have that method's shape (such as a
/// `tools/call` without a `name`, or a `tools/list` cursor that is not a
/// string), and for a notification whose `params` rmcp cannot read;
/// [`METHOD_NOT_FOUND`] for a request for another method whose `params`
/// rmcp cannot read (rmcp answers it itself when it can).
///
/// The first pass reads the bytes once without building a tree (strings are
/// validated, nesting is bounded); only a message that passes it is handed
/// to rmcp's deserializer, which builds the message rmcp would build anyway.
pub fn check(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Rejection> {
    let mut top = TopLevel::default();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let scanned = (&mut top).deserialize(&mut de).and_then(|()| de.end());
    if let Err(e) = scanned {
        return Err(Rejection::new(
            PARSE_ERROR,
            format!("Parse error: {e}"),
            top.id(),
        ));
    }
    match top.shape {
        Shape::Array => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "Invalid Request: JSON-RPC batches are not supported; send one message at a time"
                    .into(),
                None,
            ));
        }
        Shape::Other => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message is a JSON object".into(),
                None,
            ));
        }
        Shape::Object => {}
    }
    if let Some(known) = top.known
        && REMOVED_IN_2026_07_28.contains(&known.method)
        && declares_2026_07_28(bytes)
    {
        return Err(Rejection {
            not_found: true,
            ..Rejection::new(
                METHOD_NOT_FOUND,
                format!(
                    "Method not found: {} does not exist in MCP 2026-07-28, the revision this request declares",
                    known.method
                ),
                top.id(),
            )
        });
    }
    let message = match top.typed(bytes) {
        Some(request) => {
            let message = JsonRpcMessage::Request(request);
            debug_assert!(
                reads_as_rmcp_does(bytes, &message),
                "the typed reading of {} differs from rmcp's",
                String::from_utf8_lossy(bytes)
            );
            message
        }
        None => match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
            Ok(message) => message,
            Err(e) => return Err(why_rmcp_refuses(bytes, &top, &e)),
        },
    };
    let mut message = message;
    // A tools/call's argument numbers that a double rounds to an integer
    // they are not go with the request, for admission to hold as written.
    if let JsonRpcMessage::Request(request) = &mut message
        && let ClientRequest::CallToolRequest(call) = &mut request.request
    {
        let numbers = rounded::in_arguments(bytes);
        if !numbers.is_empty() {
            call.extensions.insert(numbers);
        }
    }
    if let JsonRpcMessage::Request(request) = &message
        && let Some(known) = top.known
    {
        let custom = matches!(request.request, ClientRequest::CustomRequest(_));
        // rmcp reads optional params leniently: ones that do not fit are
        // dropped, so a request for the first page would be served instead.
        let dropped = known.lenient && top.params_given && (known.strict)(bytes).is_err();
        if custom || dropped {
            return Err(invalid_params(known, bytes, request.id.clone()));
        }
    }
    Ok(message)
}

/// Whether rmcp reads `bytes` as `message` (for the debug check of
/// [`TopLevel::typed`]); `ClientRequest` has no `PartialEq`, so their debug
/// forms are compared, which show every field.
fn reads_as_rmcp_does(bytes: &[u8], message: &ClientJsonRpcMessage) -> bool {
    serde_json::from_slice::<ClientJsonRpcMessage>(bytes)
        .is_ok_and(|rmcp| format!("{rmcp:?}") == format!("{message:?}"))
}

/// Methods that revision 2026-07-28 removed (SEP-2575, SEP-2577): a request
/// that declares that revision in its `_meta` and calls one of them gets
/// `-32601` (HTTP 404), whatever its `params`.
const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether the request's `params._meta` names protocol 2026-07-28 or later.
/// Only read for the few removed methods, so parsing the message again
/// costs nothing on the common path.
fn declares_2026_07_28(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Message {
        params: Option<Params>,
    }
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(Deserialize)]
    struct Meta {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
        version: Option<String>,
    }
    serde_json::from_slice::<Message>(bytes)
        .ok()
        .and_then(|m| m.params?.meta?.version)
        .is_some_and(|v| v.as_str() >= "2026-07-28")
}

/// The answer to a JSON object that rmcp cannot read as a message: a
/// request or notification that is a good JSON-RPC envelope (by rmcp's own
/// rules) but for its `params` gets `-32602` (`-32601` for a method rmcp does
/// not know); anything else is an invalid request.
fn why_rmcp_refuses(bytes: &[u8], top: &TopLevel, error: &serde_json::Error) -> Rejection {
    match serde_json::from_slice::<EnvelopeOnly>(bytes) {
        Ok(JsonRpcMessage::Request(request)) => match top.known {
            Some(known) => invalid_params(known, bytes, request.id),
            None => Rejection::new(
                METHOD_NOT_FOUND,
                "Method not found".into(),
                Some(request.id),
            ),
        },
        Ok(JsonRpcMessage::Notification(_)) => Rejection {
            notification: true,
            not_found: false,
            ..Rejection::new(
                INVALID_PARAMS,
                format!("Invalid params: a notification's params must be an object ({error})"),
                None,
            )
        },
        _ => Rejection::new(
            INVALID_REQUEST,
            format!("Invalid Request: not a JSON-RPC 2.0 message ({error})"),
            top.id(),
        ),
    }
}

fn invalid_params(known: &Known, bytes: &[u8], id: RequestId) -> Rejection {
    let why = (known.strict)(bytes)
        .err()
        .map_or_else(|| "they do not fit".to_string(), |e| e.to_string());
    Rejection::new(
        INVALID_PARAMS,
        format!("Invalid params for {}: {why}", known.method),
        Some(id),
    )
}

/// A JSON-RPC message read by rmcp's own envelope rules (`jsonrpc`, `id`,
/// which members make which kind of message), with any `params`, `result`.
type EnvelopeOnly = JsonRpcMessage<AnyCall, IgnoredAny, AnyCall>;

/// A request or notification with any method and any `params`.
#[derive(Deserialize)]
struct AnyCall {
    #[serde(rename = "method")]
    _method: String,
    #[serde(rename = "params", default)]
    _params: IgnoredAny,
}

/// The top-level `id` of a message's start, when it can be read before the
/// text ends or breaks.
pub fn recover_id(prefix: &[u8]) -> Option<RequestId> {
    let mut top = TopLevel::default();
    let _ = (&mut top).deserialize(&mut serde_json::Deserializer::from_slice(prefix));
    top.id()
}

/// Parses a whole message as one typed request of rmcp's, strictly.
type Probe = fn(&[u8]) -> Result<(), serde_json::Error>;

fn probe<R: DeserializeOwned>(bytes: &[u8]) -> Result<(), serde_json::Error> {
    serde_json::from_slice::<JsonRpcRequest<R>>(bytes).map(drop)
}

/// Reads a whole message as one typed request of rmcp's.
type Read = fn(&[u8]) -> Option<JsonRpcRequest<ClientRequest>>;

/// A request for `R`'s method read as `R`, the variant of `ClientRequest`
/// rmcp reads it as: rmcp's `ClientRequest` is an untagged enum, which
/// buffers the message and tries each variant in turn, building an error
/// for each that does not fit (about half of reading a `tools/call`); only
/// `R` can fit a request for its method but the custom request, which comes
/// last.
fn read<R: DeserializeOwned + Into<ClientRequest>>(
    bytes: &[u8],
) -> Option<JsonRpcRequest<ClientRequest>> {
    let typed = serde_json::from_slice::<JsonRpcRequest<R>>(bytes).ok()?;
    Some(JsonRpcRequest {
        jsonrpc: typed.jsonrpc,
        id: typed.id,
        request: typed.request.into(),
    })
}

/// A method rmcp's `ClientRequest` knows.
#[derive(Debug)]
struct Known {
    method: &'static str,
    /// Parses a request for the method with the params it requires.
    strict: Probe,
    /// Reads a request for the method as rmcp does, if it fits.
    read: Read,
    /// Whether rmcp drops `params` that do not fit instead of refusing them.
    lenient: bool,
}

/// What a typed rmcp request says about its method.
trait KnownMethod {
    const KNOWN: Known;
}

impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> KnownMethod for Request<M, P>
where
    Self: Into<ClientRequest>,
{
    const KNOWN: Known = Known {
        method: M::VALUE,
        strict: probe::<Self>,
        read: read::<Self>,
        lenient: false,
    };
}

/// rmcp reads optional params through a flattened `Option`, which turns
/// params that do not fit into none; the strict reading requires them.
impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> KnownMethod
    for RequestOptionalParam<M, P>
where
    Self: Into<ClientRequest>,
{
    const KNOWN: Known = Known {
        method: M::VALUE,
        strict: probe::<Request<M, P>>,
        read: read::<Self>,
        lenient: true,
    };
}

impl<M: ConstString + DeserializeOwned> KnownMethod for RequestNoParam<M>
where
    Self: Into<ClientRequest>,
{
    const KNOWN: Known = Known {
        method: M::VALUE,
        strict: probe::<Self>,
        read: read::<Self>,
        lenient: false,
    };
}

macro_rules! known {
    ($($request:ty),* $(,)?) => {
        &[$(<$request as KnownMethod>::KNOWN),*]
    };
}

/// Every variant of rmcp's `ClientRequest` but its custom request: a request
/// for one of these methods that rmcp reads as a custom request (or cannot
/// read at all) has `params` of the wrong shape.
#[allow(deprecated)] // as the imports
const KNOWN: &[Known] = known![
    PingRequest,
    InitializeRequest,
    DiscoverRequest,
    CompleteRequest,
    SetLevelRequest,
    GetPromptRequest,
    ListPromptsRequest,
    ListResourcesRequest,
    ListResourceTemplatesRequest,
    ReadResourceRequest,
    SubscriptionsListenRequest,
    SubscribeRequest,
    UnsubscribeRequest,
    CallToolRequest,
    ListToolsRequest,
    GetTaskRequest,
    UpdateTaskRequest,
    CancelTaskRequest,
    ListSkillsRequest,
    GetSkillRequest,
    ReadResourceDirectoryRequest,
];

/// What kind of JSON value the message is.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Shape {
    Object,
    Array,
    #[default]
    Other,
}

/// What the first pass learns: the message's shape and its top-level `id`,
/// recorded as soon as the id's value has been read (the last one wins, as in
/// a JSON object built from the text). A number is only known to be whole
/// once what follows it has been read: `{"id":12` may be the start of
/// `{"id":123`.
#[derive(Debug, Default)]
struct TopLevel {
    shape: Shape,
    id: Option<RequestId>,
    id_is_whole: bool,
    /// The `method`, when it is one rmcp knows.
    known: Option<&'static Known>,
    /// Whether `params` is there and not null.
    params_given: bool,
    /// Whether a member other than `jsonrpc`, `id`, `method` and `params`
    /// is there.
    other_members: bool,
}

impl TopLevel {
    fn id(&self) -> Option<RequestId> {
        self.id.clone().filter(|_| self.id_is_whole)
    }

    /// The message read as rmcp reads it, when it is a request for a
    /// method rmcp knows with nothing but a request's members (which rmcp
    /// reads as a request) and it fits that method's type; else `None`, and
    /// rmcp's own reading decides.
    fn typed(&self, bytes: &[u8]) -> Option<JsonRpcRequest<ClientRequest>> {
        let plain = self.shape == Shape::Object && !self.other_members && self.id().is_some();
        plain
            .then_some(self.known?)
            .and_then(|known| (known.read)(bytes))
    }
}

impl<'de> DeserializeSeed<'de> for &mut TopLevel {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut TopLevel {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.shape = Shape::Object;
        loop {
            let key = map.next_key_seed(KeySeed)?;
            // A key or the end of the object followed the last value.
            self.id_is_whole = true;
            let Some(key) = key else { return Ok(()) };
            self.other_members |= matches!(key, Key::Other);
            match map.next_value_seed(Member(key))? {
                Seen::Id(id) => {
                    self.id_is_whole = matches!(id, Some(RequestId::String(_)));
                    self.id = id;
                }
                Seen::Method(known) => self.known = known,
                Seen::Params(given) => self.params_given = given,
                Seen::Nothing => {}
            }
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.shape = Shape::Array;
        walk_seq(seq)
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The top-level members the first pass looks at.
#[derive(Debug, Clone, Copy)]
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Other,
}

/// Reads an object key, checked like any string, and says which it is.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "jsonrpc" => Key::Jsonrpc,
            "id" => Key::Id,
            "method" => Key::Method,
            "params" => Key::Params,
            _ => Key::Other,
        })
    }
}

/// What the first pass keeps of a top-level member's value.
enum Seen {
    /// The `id` as rmcp's `NumberOrString` reads one: a string, an integer
    /// that fits in an `i64`, or a float that is exactly such an integer
    /// below 2^53; `None` for anything else.
    Id(Option<RequestId>),
    /// The `method`, when it is one rmcp knows.
    Method(Option<&'static Known>),
    /// Whether `params` is not null.
    Params(bool),
    Nothing,
}

/// Reads any JSON value to its end with every string decoded (so invalid
/// UTF-8 and lone surrogates fail) and every level counted against the
/// parser's depth limit, keeping only what [`Seen`] needs of the member
/// `.0`. `IgnoredAny` would skip strings unchecked and nest without the
/// limit.
struct Member(Key);

impl Member {
    /// What is kept of a value that is not a string: `id` is the id read
    /// from a number, if any; `given` whether it is not null.
    fn seen(&self, id: Option<RequestId>, given: bool) -> Seen {
        match self.0 {
            Key::Id => Seen::Id(id),
            Key::Method => Seen::Method(None),
            Key::Params => Seen::Params(given),
            Key::Jsonrpc | Key::Other => Seen::Nothing,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Member {
    type Value = Seen;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Seen, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Member {
    type Value = Seen;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, text: &str) -> Result<Seen, E> {
        Ok(match self.0 {
            Key::Id => Seen::Id(Some(RequestId::String(text.into()))),
            Key::Method => Seen::Method(KNOWN.iter().find(|k| k.method == text)),
            _ => self.seen(None, true),
        })
    }
    fn visit_i64<E>(self, n: i64) -> Result<Seen, E> {
        Ok(self.seen(Some(RequestId::Number(n)), true))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Seen, E> {
        Ok(self.seen(i64::try_from(n).ok().map(RequestId::Number), true))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Seen, E> {
        const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53, as rmcp
        let integral = n.fract() == 0.0 && n.abs() < MAX_EXACT;
        Ok(self.seen(integral.then_some(RequestId::Number(n as i64)), true))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Seen, E> {
        Ok(self.seen(None, true))
    }
    fn visit_unit<E>(self) -> Result<Seen, E> {
        Ok(self.seen(None, false))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        while map
            .next_entry_seed(Member(Key::Other), Member(Key::Other))?
            .is_some()
        {}
        Ok(self.seen(None, true))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Seen, A::Error> {
        walk_seq(seq)?;
        Ok(self.seen(None, true))
    }
}

fn walk_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element_seed(Member(Key::Other))?.is_some() {}
    Ok(())
}

mod rounded;
#[cfg(test)]
mod tests;
