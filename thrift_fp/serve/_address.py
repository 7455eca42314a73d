"""``--http HOST:PORT``: parsed, and refused off the loopback interface unless the operator
says otherwise (the server has no authentication of its own)."""

from __future__ import annotations

import ipaddress

from returns.result import Failure, Result, Success

from thrift_fp.serve._errors import InvalidSetting


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost`` or a loopback address).

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_address(text: str, *, allow_remote: bool = False) -> Result[tuple[str, int], InvalidSetting]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; port 0 picks a free one) as a host and a port.

    >>> http_address("127.0.0.1:8765").unwrap(), http_address("[::1]:0").unwrap()
    (('127.0.0.1', 8765), ('::1', 0))
    >>> http_address("0.0.0.0:8765").failure().message
    "serve: http = '0.0.0.0:8765': not a loopback address; the server has no authentication, so it binds only to this machine unless --allow-remote is given"
    >>> http_address("127.0.0.1:99999").failure().message
    "serve: http = '127.0.0.1:99999': the port must be from 0 to 65535"
    """
    host, colon, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or not port.isdigit():
        return Failure(InvalidSetting("http", text, "expected HOST:PORT, such as 127.0.0.1:8765"))
    if int(port) > 65535:
        return Failure(InvalidSetting("http", text, "the port must be from 0 to 65535"))
    if not allow_remote and not is_loopback(host):
        return Failure(
            InvalidSetting(
                "http", text,
                "not a loopback address; the server has no authentication, so it binds only to this machine"
                " unless --allow-remote is given",
            )
        )
    return Success((host, int(port)))
