//! Deliveries and the processes behind them, through the real `hooks`
//! binary: webhooks, the durable spool, JetStream, fleets of workers, OTLP
//! spans, process bounds and signals. Shared helpers are in `tests/common/`.

#[allow(dead_code, unused_imports)]
#[path = "../common/dialects.rs"]
mod dialects;
#[allow(dead_code, unused_imports)]
#[path = "../common/harness.rs"]
mod harness;
#[allow(dead_code, unused_imports)]
#[path = "../common/project_fixtures.rs"]
mod project_fixtures;
#[allow(dead_code, unused_imports)]
#[path = "../common/support.rs"]
mod support;

mod deliveries;
mod durable;
mod fleet;
mod fleet_stream;
mod jetstream;
mod otlp;
mod process_faults;
mod signals;
