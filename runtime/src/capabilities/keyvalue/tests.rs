//! Tests of the keyvalue capability's policy.
