//! Which addresses an outbound connection may reach: every public address,
//! and an internal one (loopback, private, link-local, cloud metadata, …)
//! only when the policy names that address or a range holding it. Checked
//! after name resolution, so an allowed name that resolves (or is rebound)
//! to an internal address cannot be used to reach it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// Why an address is internal, for messages; `None` for a public address.
pub fn internal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => internal_v6(v6),
    }
}

fn internal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_loopback() => "a loopback address",
        _ if ip.is_unspecified() || a == 0 => "an unspecified address",
        (169, 254, _) => "a link-local address (cloud metadata services live here)",
        _ if ip.is_private() => "a private address",
        (100, b, _) if (64..128).contains(&b) => "a shared (carrier-grade NAT) address",
        (192, 0, 0) => "an IETF protocol address",
        (198, 18..=19, _) => "a benchmarking address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        _ if ip.is_multicast() => "a multicast address",
        _ if a >= 240 => "a reserved address",
        _ => return None,
    })
}

fn internal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return internal_v4(v4);
    }
    let segments = ip.segments();
    // NAT64 (64:ff9b::/96) embeds an IPv4 address in its last 32 bits.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., hi, lo] = segments;
        return internal_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    Some(match segments[0] {
        _ if ip.is_loopback() => "a loopback address",
        _ if ip.is_unspecified() => "an unspecified address",
        s if s & 0xfe00 == 0xfc00 => "a unique local (private) address",
        s if s & 0xffc0 == 0xfe80 => "a link-local address",
        s if s & 0xff00 == 0xff00 => "a multicast address",
        0x2001 if segments[1] == 0x0db8 => "a documentation address",
        // IPv4-compatible (deprecated) and other ::/96 forms.
        0 => "a reserved address",
        _ => return None,
    })
}

/// An `allow_addresses` entry that is neither an address nor a range (the
/// entry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an address or a range like 10.0.0.0/8")]
pub struct NotAnAddress(pub String);

/// The addresses and ranges a policy grants beyond the public ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressGrants {
    ranges: Vec<IpNet>,
}

impl AddressGrants {
    /// Parses `allow_addresses` entries: an address (`127.0.0.1`, `::1`) or
    /// a range (`10.0.0.0/8`).
    pub fn parse(entries: &[String]) -> Result<Self, NotAnAddress> {
        let ranges = entries
            .iter()
            .map(|e| {
                e.parse::<IpNet>()
                    .or_else(|_| e.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| NotAnAddress(e.clone()))
            })
            .collect::<Result<_, _>>()?;
        Ok(AddressGrants { ranges })
    }

    /// Adds one address (an allow-list entry that names an address literal
    /// grants that address).
    pub fn add(&mut self, ip: IpAddr) {
        self.ranges.push(IpNet::from(ip));
    }

    /// Whether the policy names `ip` or a range holding it.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let canonical = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.ranges
            .iter()
            .any(|r| r.contains(&ip) || r.contains(&canonical))
    }

    /// The entries, as written back (`127.0.0.1/32` for a single address).
    pub fn entries(&self) -> impl Iterator<Item = String> + '_ {
        self.ranges.iter().map(|r| match r {
            IpNet::V4(n) if n.prefix_len() == 32 => n.addr().to_string(),
            IpNet::V6(n) if n.prefix_len() == 128 => n.addr().to_string(),
            r => r.to_string(),
        })
    }

    /// No address beyond the public ones is granted.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

/// Why `ip` may not be reached under `grants`, or `None` when it may.
pub fn refusal(ip: IpAddr, grants: &AddressGrants) -> Option<&'static str> {
    internal(ip).filter(|_| !grants.contains(ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn internal_addresses_are_recognised_in_every_form() {
        for s in [
            "127.0.0.1",
            "127.5.5.5",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "::127.0.0.1",
        ] {
            assert!(internal(ip(s)).is_some(), "{s} should be internal");
        }
        for s in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(internal(ip(s)), None, "{s} should be public");
        }
        assert!(
            internal(ip("169.254.169.254"))
                .unwrap()
                .contains("metadata")
        );
    }

    #[test]
    fn only_named_addresses_and_ranges_are_granted() {
        let grants =
            AddressGrants::parse(&["127.0.0.1".into(), "10.0.0.0/8".into(), "::1".into()]).unwrap();
        assert_eq!(refusal(ip("127.0.0.1"), &grants), None);
        assert_eq!(refusal(ip("::ffff:127.0.0.1"), &grants), None);
        assert_eq!(refusal(ip("10.200.0.1"), &grants), None);
        assert_eq!(refusal(ip("::1"), &grants), None);
        assert!(refusal(ip("127.0.0.2"), &grants).is_some());
        assert!(refusal(ip("169.254.169.254"), &grants).is_some());
        assert_eq!(refusal(ip("8.8.8.8"), &AddressGrants::default()), None);
        assert_eq!(
            grants.entries().collect::<Vec<_>>(),
            ["127.0.0.1", "10.0.0.0/8", "::1"]
        );
        let e = AddressGrants::parse(&["localhost".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"localhost\""), "{e}");
    }
}
