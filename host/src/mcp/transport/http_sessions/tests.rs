//! Unit tests of `mcp::transport::http_sessions`.
use super::*;

fn owner(subject: Option<&str>, address: &str) -> Owner {
    Owner {
        subject: subject.map(Arc::from),
        address: Some(address.parse().unwrap()),
    }
}

fn limits(server: usize, subject: usize, address: usize) -> SessionSettings {
    SessionSettings {
        max_sessions: server,
        max_per_subject: subject,
        max_per_address: address,
        idle_timeout: Duration::from_secs(90),
    }
}

/// Opens session `id` for `owner`, as rmcp and the layer do.
fn open(registry: &Registry, id: &str, owner: Owner) -> Result<(), Refusal> {
    registry.check(&owner)?;
    registry.opened(id);
    let claimed = registry.claim(id, owner);
    if claimed.is_err() {
        registry.closed(id);
    }
    claimed
}

#[test]
fn a_session_answers_only_to_the_subject_that_opened_it() {
    let registry = Registry::new(SessionSettings::default());
    let (alice, mallory): (Arc<str>, Arc<str>) = ("alice".into(), "mallory".into());
    registry.opened("s1");
    // Before its `initialize` is bound, a session answers to nobody.
    assert_eq!(registry.access("s1", Some(&alice)), Access::Unknown);
    registry
        .claim("s1", owner(Some("alice"), "127.0.0.1"))
        .unwrap();
    assert_eq!(registry.access("s1", Some(&alice)), Access::Granted);
    for _ in 0..2 {
        // Refused, and still refused: the first use by another subject
        // does not make the session theirs.
        assert_eq!(
            registry.access("s1", Some(&mallory)),
            Access::Foreign(Some(alice.clone()))
        );
    }
    assert_eq!(
        registry.access("s1", None),
        Access::Foreign(Some(alice.clone())),
        "a request without a subject is not the subject's"
    );
    assert_eq!(registry.access("s1", Some(&alice)), Access::Granted);
    assert_eq!(registry.access("s2", Some(&alice)), Access::Unknown);
    // A second claim (a replayed `initialize`) cannot rebind it.
    registry
        .claim("s1", owner(Some("mallory"), "127.0.0.1"))
        .unwrap();
    assert_eq!(registry.access("s1", Some(&alice)), Access::Granted);
    assert!(registry.closed("s1"));
    assert_eq!(registry.access("s1", Some(&alice)), Access::Unknown);
    // Without OAuth, sessions have no subject and answer to anyone.
    open(&registry, "s3", owner(None, "127.0.0.1")).unwrap();
    assert_eq!(registry.access("s3", None), Access::Granted);
}

#[test]
fn each_bound_refuses_with_its_key_and_a_closed_session_frees_its_slot() {
    struct Case {
        limits: SessionSettings,
        held: Vec<(Option<&'static str>, &'static str)>,
        next: (Option<&'static str>, &'static str),
        refused: Option<Bound>,
    }
    let a = Some("alice");
    let b = Some("bob");
    let cases = [
        Case {
            limits: limits(2, 0, 0),
            held: vec![(a, "10.0.0.1"), (b, "10.0.0.2")],
            next: (Some("carol"), "10.0.0.3"),
            refused: Some(Bound::Server),
        },
        Case {
            limits: limits(3, 0, 0),
            held: vec![(a, "10.0.0.1"), (b, "10.0.0.2")],
            next: (Some("carol"), "10.0.0.3"),
            refused: None,
        },
        Case {
            limits: limits(9, 2, 0),
            held: vec![(a, "10.0.0.1"), (a, "10.0.0.2")],
            next: (a, "10.0.0.3"),
            refused: Some(Bound::Subject),
        },
        Case {
            limits: limits(9, 2, 0),
            held: vec![(a, "10.0.0.1"), (a, "10.0.0.2")],
            next: (b, "10.0.0.1"),
            refused: None,
        },
        Case {
            limits: limits(9, 0, 2),
            held: vec![(a, "10.0.0.1"), (b, "10.0.0.1")],
            next: (Some("carol"), "10.0.0.1"),
            refused: Some(Bound::Address),
        },
        Case {
            limits: limits(9, 0, 2),
            held: vec![(a, "10.0.0.1"), (b, "10.0.0.1")],
            next: (a, "10.0.0.2"),
            refused: None,
        },
        Case {
            limits: limits(9, 0, 0),
            held: vec![(a, "10.0.0.1"); 8],
            next: (a, "10.0.0.1"),
            refused: None,
        },
        Case {
            limits: limits(2, 1, 1),
            held: vec![(None, "10.0.0.1")],
            next: (None, "10.0.0.2"),
            refused: None,
        },
        Case {
            limits: limits(2, 1, 1),
            held: vec![(None, "10.0.0.1")],
            next: (None, "10.0.0.1"),
            refused: Some(Bound::Address),
        },
    ];
    for (n, case) in cases.iter().enumerate() {
        let registry = Registry::new(case.limits);
        for (i, (subject, address)) in case.held.iter().enumerate() {
            open(&registry, &format!("held{i}"), owner(*subject, address)).unwrap();
        }
        let next = owner(case.next.0, case.next.1);
        let got = open(&registry, "next", next.clone()).err().map(|r| r.bound);
        assert_eq!(got, case.refused, "case {n}");
        let Some(bound) = case.refused else { continue };
        let refusal = registry.check(&next).unwrap_err();
        assert!(refusal.to_string().contains(bound.key()), "{refusal}");
        assert_eq!(
            registry.len(),
            case.held.len(),
            "case {n}: the refused one is gone"
        );
        // Closing a session of the same holder frees a slot.
        assert!(registry.closed("held0"));
        open(&registry, "next", next).unwrap();
    }
}

#[test]
fn the_layer_decides_before_the_session_manager_and_the_race_is_refused_too() {
    let registry = Registry::new(limits(1, 0, 0));
    // Two `initialize` requests both passed the layer's check; the
    // second to claim is refused.
    let first = owner(None, "10.0.0.1");
    registry.check(&first).unwrap();
    registry.check(&first).unwrap();
    registry.opened("s1");
    registry.opened("s2");
    registry.claim("s1", first.clone()).unwrap();
    let refusal = registry.claim("s2", first).unwrap_err();
    assert_eq!(refusal.bound, Bound::Server);
    assert!(registry.closed("s2"));
    assert!(!registry.closed("s2"), "closed once");
    assert!(registry.closed("s1"));
    assert!(registry.is_empty());
    let state = registry.state();
    assert!(state.subjects.capacity() == 0 && state.addresses.capacity() == 0);
}

#[test]
fn refusals_are_json_rpc_errors_with_the_status_of_their_bound() {
    for (bound, status) in [
        (Bound::Server, 503),
        (Bound::Subject, 429),
        (Bound::Address, 429),
    ] {
        let refusal = Refusal {
            bound,
            limit: 7,
            idle: Duration::from_millis(1500),
        };
        let response = refusal.response(Some(RequestId::Number(4)));
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
    }
    let response = not_found(None);
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}
