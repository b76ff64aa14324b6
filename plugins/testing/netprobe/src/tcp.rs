//! A wasi:sockets TCP connect, resolving a name with `ip-name-lookup` first,
//! reporting the first failure as its wasi:sockets error code name.

use std::net::IpAddr;

use wasip2::sockets::instance_network::instance_network;
use wasip2::sockets::ip_name_lookup::resolve_addresses;
use wasip2::sockets::network::{
    ErrorCode, IpAddress, IpAddressFamily, IpSocketAddress, Ipv4SocketAddress, Ipv6SocketAddress,
    Network,
};
use wasip2::sockets::tcp_create_socket::create_tcp_socket;

/// Connects to `addr` (`host:port`, `[v6]:port`) and closes the connection.
/// The error is the step that failed and its error code name (e.g.
/// `connect: access-denied`).
pub fn connect(addr: &str) -> Result<(), String> {
    let (host, port) = addr
        .rsplit_once(':')
        .ok_or_else(|| format!("{addr:?} is not host:port"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{port:?} is not a port number"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let network = instance_network();
    let address = match host.parse::<IpAddr>() {
        Ok(ip) => to_wasi(ip),
        Err(_) => lookup(&network, host).map_err(|e| format!("name lookup: {}", e.name()))?,
    };
    let (family, remote) = match address {
        IpAddress::Ipv4(address) => (
            IpAddressFamily::Ipv4,
            IpSocketAddress::Ipv4(Ipv4SocketAddress { port, address }),
        ),
        IpAddress::Ipv6(address) => (
            IpAddressFamily::Ipv6,
            IpSocketAddress::Ipv6(Ipv6SocketAddress {
                port,
                flow_info: 0,
                address,
                scope_id: 0,
            }),
        ),
    };
    let socket = create_tcp_socket(family).map_err(|e| format!("create socket: {}", e.name()))?;
    socket
        .start_connect(&network, remote)
        .map_err(|e| format!("connect: {}", e.name()))?;
    let pollable = socket.subscribe();
    loop {
        match socket.finish_connect() {
            Ok(_streams) => return Ok(()),
            Err(ErrorCode::WouldBlock) => pollable.block(),
            Err(e) => return Err(format!("connect: {}", e.name())),
        }
    }
}

/// The first address `name` resolves to.
fn lookup(network: &Network, name: &str) -> Result<IpAddress, ErrorCode> {
    let stream = resolve_addresses(network, name)?;
    let pollable = stream.subscribe();
    loop {
        match stream.resolve_next_address() {
            Ok(Some(address)) => return Ok(address),
            Ok(None) => return Err(ErrorCode::NameUnresolvable),
            Err(ErrorCode::WouldBlock) => pollable.block(),
            Err(e) => return Err(e),
        }
    }
}

fn to_wasi(ip: IpAddr) -> IpAddress {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, d] = v4.octets();
            IpAddress::Ipv4((a, b, c, d))
        }
        IpAddr::V6(v6) => {
            let [a, b, c, d, e, f, g, h] = v6.segments();
            IpAddress::Ipv6((a, b, c, d, e, f, g, h))
        }
    }
}
