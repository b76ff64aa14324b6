"""Content blocks a tool may return (text, image, audio, resource link, embedded resource) and `Result` to mix them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

Role = Literal["user", "assistant"]


@dataclass
class Annotations:
    """Optional hints on a content block."""

    audience: list[Role] = field(default_factory=list)
    priority: Optional[float] = None
    last_modified: Optional[str] = None


@dataclass
class Text:
    text: str
    annotations: Optional[Annotations] = None


@dataclass
class Image:
    data: bytes
    mime_type: str
    annotations: Optional[Annotations] = None


@dataclass
class Audio:
    data: bytes
    mime_type: str
    annotations: Optional[Annotations] = None


@dataclass
class ResourceLink:
    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Annotations] = None


@dataclass
class EmbeddedResource:
    """A resource whose body is `text` (a str) or a blob (bytes)."""

    uri: str
    body: Union[str, bytes]
    mime_type: Optional[str] = None
    annotations: Optional[Annotations] = None


Content = Union[Text, Image, Audio, ResourceLink, EmbeddedResource]
CONTENT_TYPES = (Text, Image, Audio, ResourceLink, EmbeddedResource)


@dataclass
class Result:
    """A call's whole result: content blocks (a str becomes a text block),
    optional structured content (a dict, a dataclass or a TypedDict), and
    whether it is an error the model should see."""

    content: list[Union[Content, str]] = field(default_factory=list)
    structured: Any = None
    is_error: bool = False


def text(value: str, annotations: Optional[Annotations] = None) -> Text:
    """A text block."""
    return Text(value, annotations)


def image(data: bytes, mime_type: str, annotations: Optional[Annotations] = None) -> Image:
    """An image block, e.g. `image(png_bytes, "image/png")`."""
    return Image(data, mime_type, annotations)


def audio(data: bytes, mime_type: str, annotations: Optional[Annotations] = None) -> Audio:
    """An audio block, e.g. `audio(wav_bytes, "audio/wav")`."""
    return Audio(data, mime_type, annotations)


def resource_link(uri: str, name: str, **fields: Any) -> ResourceLink:
    """A link to a resource; `fields`: title, description, mime_type, size, annotations."""
    return ResourceLink(uri, name, **fields)


def resource(uri: str, body: Union[str, bytes], mime_type: Optional[str] = None,
             annotations: Optional[Annotations] = None) -> EmbeddedResource:
    """An embedded resource with text (str) or binary (bytes) contents."""
    return EmbeddedResource(uri, body, mime_type, annotations)
