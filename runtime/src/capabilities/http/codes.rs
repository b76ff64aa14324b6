//! The wasi:http `error-code` a guest gets for a failed body stream.
//!
//! wasmtime-wasi-http 48 fails an incoming body's stream with the error its
//! body produced, a `wasmtime_wasi_http::Error` (the host's sender gives
//! `HTTP-response-body-size` there when a response is over its limit), but
//! its `http-error-code` only recognises the bindings' own `error-code`
//! type, so the guest got `none` and only a debug string. The host defines
//! `http-error-code` over it, recognising both.

use wasmtime::component::{Linker, Resource};
use wasmtime_wasi_http::Error;
use wasmtime_wasi_http::p2::bindings::http::types::{
    DnsErrorPayload, ErrorCode, FieldSizePayload, TlsAlertReceivedPayload,
};

use super::super::CapsView;

/// The wasi:http interface whose `http-error-code` the host replaces; the
/// version wasmtime-wasi-http's bindings define (older 0.2 imports link to
/// it).
const TYPES: &str = "wasi:http/types@0.2.12";

/// Replaces `http-error-code` in the linker (after wasi:http is linked).
pub fn link<T: CapsView>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    crate::load::bindings::replace(linker, TYPES, |types| {
        types.func_wrap(
            "http-error-code",
            |mut store: wasmtime::StoreContextMut<'_, T>,
             (error,): (Resource<wasmtime::Error>,)| {
                let (table, _) = store.data_mut().table_and_caps();
                Ok((code_of(table.get(&error)?),))
            },
        )
    })
}

/// The `error-code` behind a stream error, if wasi:http produced it.
pub fn code_of(error: &wasmtime::Error) -> Option<ErrorCode> {
    if let Some(code) = error.downcast_ref::<ErrorCode>() {
        return Some(code.clone());
    }
    error.downcast_ref::<Error>().map(code)
}

/// The `error-code` case of a wasmtime-wasi-http error.
pub fn code(error: &Error) -> ErrorCode {
    let field = |name: &Option<String>, size: &Option<u32>| FieldSizePayload {
        field_name: name.clone(),
        field_size: *size,
    };
    match error {
        Error::Hyper(e) if e.is_timeout() => ErrorCode::HttpResponseTimeout,
        Error::Hyper(e) if e.is_incomplete_message() || e.is_closed() => {
            ErrorCode::HttpResponseIncomplete
        }
        Error::Hyper(_) => ErrorCode::HttpProtocolError,
        Error::Connect(_) => ErrorCode::ConnectionRefused,
        Error::Tls(_) => ErrorCode::TlsProtocolError,
        Error::HttpRequestBodySize(n) => ErrorCode::HttpRequestBodySize(*n),
        Error::DnsTimeout => ErrorCode::DnsTimeout,
        Error::DnsError { rcode, info_code } => ErrorCode::DnsError(DnsErrorPayload {
            rcode: rcode.clone(),
            info_code: *info_code,
        }),
        Error::DestinationNotFound => ErrorCode::DestinationNotFound,
        Error::DestinationUnavailable => ErrorCode::DestinationUnavailable,
        Error::DestinationIpProhibited => ErrorCode::DestinationIpProhibited,
        Error::DestinationIpUnroutable => ErrorCode::DestinationIpUnroutable,
        Error::ConnectionRefused => ErrorCode::ConnectionRefused,
        Error::ConnectionTerminated => ErrorCode::ConnectionTerminated,
        Error::ConnectionTimeout => ErrorCode::ConnectionTimeout,
        Error::ConnectionReadTimeout => ErrorCode::ConnectionReadTimeout,
        Error::ConnectionWriteTimeout => ErrorCode::ConnectionWriteTimeout,
        Error::ConnectionLimitReached => ErrorCode::ConnectionLimitReached,
        Error::TlsProtocolError => ErrorCode::TlsProtocolError,
        Error::TlsCertificateError => ErrorCode::TlsCertificateError,
        Error::TlsAlertReceived {
            alert_id,
            alert_message,
        } => ErrorCode::TlsAlertReceived(TlsAlertReceivedPayload {
            alert_id: *alert_id,
            alert_message: alert_message.clone(),
        }),
        Error::HttpRequestDenied => ErrorCode::HttpRequestDenied,
        Error::HttpRequestLengthRequired => ErrorCode::HttpRequestLengthRequired,
        Error::HttpRequestMethodInvalid => ErrorCode::HttpRequestMethodInvalid,
        Error::HttpRequestUriInvalid => ErrorCode::HttpRequestUriInvalid,
        Error::HttpRequestUriTooLong => ErrorCode::HttpRequestUriTooLong,
        Error::HttpRequestHeaderSectionSize(n) => ErrorCode::HttpRequestHeaderSectionSize(*n),
        Error::HttpRequestHeaderSize {
            field_name,
            field_size,
        } => ErrorCode::HttpRequestHeaderSize(Some(field(field_name, field_size))),
        Error::HttpRequestTrailerSectionSize(n) => ErrorCode::HttpRequestTrailerSectionSize(*n),
        Error::HttpRequestTrailerSize {
            field_name,
            field_size,
        } => ErrorCode::HttpRequestTrailerSize(field(field_name, field_size)),
        Error::HttpResponseIncomplete => ErrorCode::HttpResponseIncomplete,
        Error::HttpResponseHeaderSectionSize(n) => ErrorCode::HttpResponseHeaderSectionSize(*n),
        Error::HttpResponseHeaderSize {
            field_name,
            field_size,
        } => ErrorCode::HttpResponseHeaderSize(field(field_name, field_size)),
        Error::HttpResponseBodySize(n) => ErrorCode::HttpResponseBodySize(*n),
        Error::HttpResponseTrailerSectionSize(n) => ErrorCode::HttpResponseTrailerSectionSize(*n),
        Error::HttpResponseTrailerSize {
            field_name,
            field_size,
        } => ErrorCode::HttpResponseTrailerSize(field(field_name, field_size)),
        Error::HttpResponseTransferCoding(c) => ErrorCode::HttpResponseTransferCoding(c.clone()),
        Error::HttpResponseContentCoding(c) => ErrorCode::HttpResponseContentCoding(c.clone()),
        Error::HttpResponseTimeout => ErrorCode::HttpResponseTimeout,
        Error::HttpUpgradeFailed => ErrorCode::HttpUpgradeFailed,
        Error::HttpProtocolError => ErrorCode::HttpProtocolError,
        Error::LoopDetected => ErrorCode::LoopDetected,
        Error::ConfigurationError => ErrorCode::ConfigurationError,
        // The guest gets the case, never host text.
        Error::InternalError(_) => ErrorCode::InternalError(None),
        _ => ErrorCode::InternalError(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_error_of_wasmtime_wasi_http_has_its_code() {
        for (error, expected) in [
            (
                Error::HttpResponseBodySize(Some(4096)),
                ErrorCode::HttpResponseBodySize(Some(4096)),
            ),
            (
                Error::ConnectionReadTimeout,
                ErrorCode::ConnectionReadTimeout,
            ),
            (
                Error::HttpRequestBodySize(None),
                ErrorCode::HttpRequestBodySize(None),
            ),
            (
                Error::InternalError(Some("/root/src/x.rs:1".into())),
                ErrorCode::InternalError(None),
            ),
        ] {
            // As wasmtime-wasi-http stores it: converted with `into`.
            let stored: wasmtime::Error = error.into();
            assert_eq!(
                format!("{:?}", code_of(&stored)),
                format!("{:?}", Some(expected))
            );
        }
        let code: wasmtime::Error = ErrorCode::HttpRequestDenied.into();
        assert!(matches!(code_of(&code), Some(ErrorCode::HttpRequestDenied)));
        assert!(code_of(&wasmtime::Error::msg("other")).is_none());
    }
}
