//! The one middleware every request passes: the methods allowed, the address's length, the
//! per-address rate limit, the number of requests handled at once and their time, and the
//! headers every response carries.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Rate;
use crate::data::App;

/// What the pages may load: only this server's own pictures, stylesheet, script and streams.
pub const CSP: &str = "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; \
                       connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/// Longest path and longest query string answered; ours are far shorter.
const MAX_PATH: usize = 256;
const MAX_QUERY: usize = 128;
/// Most client addresses remembered by the rate limit before those with a full bucket are dropped
/// (and, if that leaves more than half, all of them: a flood of addresses costs one scan in many).
const MAX_CLIENTS: usize = 10_000;

/// The address a request is counted against (see [`client_address`]), for the handlers.
#[derive(Copy, Clone, Debug)]
pub struct Client(pub IpAddr);

pub async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let mut response = checked(&app, req, next).await;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.remove(header::SET_COOKIE);
    response
}

async fn checked(app: &App, mut req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut response =
            (StatusCode::METHOD_NOT_ALLOWED, "Only GET and HEAD are answered here.\n").into_response();
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    if req.uri().path().len() > MAX_PATH || req.uri().query().is_some_and(|q| q.len() > MAX_QUERY) {
        return (StatusCode::URI_TOO_LONG, "That address is too long.\n").into_response();
    }
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let client = client_address(peer, req.headers(), app.opts.behind_proxy);
    req.extensions_mut().insert(Client(client));
    if req.uri().path() != "/healthz"
        && let Err(wait) = app.limiter.take(client, Instant::now())
    {
        let mut response = (StatusCode::TOO_MANY_REQUESTS, "Too many requests; slow down.\n").into_response();
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return response;
    }
    // The wait for a turn counts in the request's time: a server flooded answers 503, not later.
    let run = async {
        let _turn = app.work.acquire().await.ok()?;
        Some(next.run(req).await)
    };
    match tokio::time::timeout(app.opts.timeout, run).await {
        Ok(Some(response)) => response,
        _ => {
            (StatusCode::SERVICE_UNAVAILABLE, "That took too long; try again in a moment.\n").into_response()
        }
    }
}

/// Whom the rate limit counts a request against: the peer, or behind a proxy the rightmost
/// `X-Forwarded-For` entry (the address the proxy saw; entries to its left are the client's to
/// write) — but only when the peer is the proxy, that is on this host or a private network. Were
/// the port also reachable directly, a client connecting to it could otherwise name any address
/// as its own, and escape the limit. An IPv6 address counts by its /64, which one subscriber
/// usually holds whole.
pub fn client_address(peer: Option<IpAddr>, headers: &HeaderMap, behind_proxy: bool) -> IpAddr {
    let forwarded = || {
        let last = headers.get_all("x-forwarded-for").iter().next_back()?;
        last.to_str().ok()?.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
    };
    let peer = peer.map(unmapped);
    let address = match peer {
        Some(proxy) if behind_proxy && may_be_proxy(proxy) => forwarded().or(peer),
        _ => peer,
    };
    match address {
        Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
        Some(v4) => v4,
        // No peer (a router driven without a listener, as in tests): one shared bucket.
        None => IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
    }
}

/// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) as the IPv4 address it is.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// A peer that may be our reverse proxy: this host, or a private network (RFC 1918, IPv6
/// unique-local), where a proxy in front of us sits; never an address of the open internet.
fn may_be_proxy(peer: IpAddr) -> bool {
    match peer {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
        IpAddr::V6(v6) => v6.is_loopback() || (v6.segments()[0] & 0xfe00) == 0xfc00,
    }
}

/// A token bucket per client address.
#[derive(Debug)]
pub struct Limiter {
    rate: Rate,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Limiter {
    pub fn new(rate: Rate) -> Limiter {
        Limiter { rate, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request from `client`'s bucket, or says how many seconds until one is there.
    pub fn take(&self, client: IpAddr, now: Instant) -> Result<(), u64> {
        let burst = f64::from(self.rate.burst.max(1));
        let per_second = self.rate.per_second.max(0.001);
        let refilled = |(tokens, at): (f64, Instant)| {
            (tokens + now.saturating_duration_since(at).as_secs_f64() * per_second).min(burst)
        };
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_CLIENTS {
            buckets.retain(|_, bucket| refilled(*bucket) < burst);
            // Many clients all busy (or one spreading itself over many addresses): forgetting
            // them all costs each a fresh bucket, where a scan on every request would cost all.
            if buckets.len() > MAX_CLIENTS / 2 {
                buckets.clear();
            }
        }
        let bucket = buckets.entry(client).or_insert((burst, now));
        let tokens = refilled(*bucket);
        if tokens >= 1.0 {
            *bucket = (tokens - 1.0, now);
            Ok(())
        } else {
            *bucket = (tokens, now);
            Err(((1.0 - tokens) / per_second).ceil().max(1.0) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_bucket_empties_and_refills() {
        let limiter = Limiter::new(Rate { burst: 3, per_second: 0.5 });
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.take(ip, t0), Ok(()));
        }
        assert_eq!(limiter.take(ip, t0), Err(2));
        assert_eq!(limiter.take(other, t0), Ok(()));
        assert_eq!(limiter.take(ip, t0 + Duration::from_secs(2)), Ok(()));
        assert!(limiter.take(ip, t0 + Duration::from_secs(2)).is_err());
    }

    #[test]
    fn too_many_busy_clients_are_forgotten_at_once() {
        let limiter = Limiter::new(Rate { burst: 3, per_second: 0.5 });
        let t0 = Instant::now();
        let ip = |i: usize| IpAddr::from([10, (i >> 16) as u8, (i >> 8) as u8, i as u8]);
        for i in 0..MAX_CLIENTS {
            limiter.take(ip(i), t0).unwrap();
        }
        let len = || limiter.buckets.lock().unwrap().len();
        assert_eq!(len(), MAX_CLIENTS);
        // None has a full bucket: the map is cleared rather than scanned again on every request.
        limiter.take(ip(MAX_CLIENTS), t0).unwrap();
        assert_eq!(len(), 1);
        // Those with a full bucket (here the ones last seen 10 s ago) are dropped first, and the
        // rest kept.
        let early = t0 - Duration::from_secs(10);
        for i in MAX_CLIENTS / 4..MAX_CLIENTS - 1 {
            limiter.take(ip(i), early).unwrap();
        }
        for i in 0..MAX_CLIENTS / 4 {
            limiter.take(ip(i), t0).unwrap();
        }
        assert_eq!(len(), MAX_CLIENTS);
        limiter.take(ip(MAX_CLIENTS + 1), t0).unwrap();
        assert_eq!(len(), MAX_CLIENTS / 4 + 2);
    }

    #[test]
    fn a_forwarded_address_counts_only_from_a_proxy_on_a_private_network() {
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("198.51.100.7"));
        let forwarded: IpAddr = "198.51.100.7".parse().unwrap();
        for proxy in
            ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "::1", "fd00::5", "::ffff:10.0.0.1"]
        {
            let proxy: IpAddr = proxy.parse().unwrap();
            assert_eq!(client_address(Some(proxy), &headers, true), forwarded, "{proxy}");
        }
        // A client reaching the port directly names itself in vain.
        for direct in ["203.0.113.5", "8.8.8.8", "2001:db8::1", "::ffff:203.0.113.5"] {
            let direct: IpAddr = direct.parse().unwrap();
            assert_ne!(client_address(Some(direct), &headers, true), forwarded, "{direct}");
        }
        assert_eq!(
            client_address(Some("203.0.113.5".parse().unwrap()), &headers, true),
            "203.0.113.5".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_address(None, &headers, true), IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    }

    #[test]
    fn the_client_is_the_rightmost_forwarded_address_only_behind_a_proxy() {
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.9, 198.51.100.7"));
        let peer: IpAddr = "127.0.0.1".parse().unwrap();
        assert_eq!(client_address(Some(peer), &headers, true), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(client_address(Some(peer), &headers, false), peer);
        let mut junk = HeaderMap::new();
        junk.append("x-forwarded-for", HeaderValue::from_static("not an address"));
        assert_eq!(client_address(Some(peer), &junk, true), peer);
        let v6: IpAddr = "2001:db8:1:2:3:4:5:6".parse().unwrap();
        assert_eq!(client_address(Some(v6), &junk, false), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
    }
}
