//! The trace sink: the deciding code (`governance::decide_with`, `projection::decide_route_with`)
//! records each step it takes — the layer, its outcome, which input decided it, the code it gave —
//! into a [`Sink`]. Without a trace the sink is [`NoTrace`], whose calls compile to nothing; with one
//! it is `trace::Recorder`, which renders each step's [`Source`] as an input path. There is one
//! decision path: a trace is what the decision did, never a second derivation of it.

use crate::vocab::{ReasonCode, TraceLayer, TraceOutcome};
use serde::Serialize;
#[cfg(feature = "types")]
use tsify::Tsify;

/// Which input decided a step (rendered as an input path by the recorder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The selected toolsets (the agent's, the input's defaults or the builtin defaults), with the
    /// index of the tool's toolset in that list when it is listed.
    Toolsets(Option<usize>),
    /// The agent's disabled list, with the index of the tool's name when it is listed.
    Disabled(Option<usize>),
    /// The tool's governance row (`status`), or the rows when it has none.
    Status,
    ModelCapability,
    MemoryEnabled,
    HasSkills,
    CrewRole,
    /// What selected (or did not select) the tool for this worker.
    Selection,
    /// The tool's routing strategy.
    Strategy,
    /// The policy's roots, its shell permission, its readonly flag.
    Roots,
    Shell,
    Write,
    /// The manifest's `workerRoutingHint`, its `supportedInWorker`.
    RoutingHint,
    SupportedInWorker,
}

/// One consulted layer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "types", derive(Tsify))]
pub struct TraceEntry {
    pub layer: TraceLayer,
    pub outcome: TraceOutcome,
    /// The input path (or `builtin:…` table entry) that decided this outcome.
    pub source: String,
    /// The code this layer contributed (or, for `overridden`, the one it would have).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "types", tsify(optional))]
    pub reason: Option<ReasonCode>,
}

/// Where deciding code records its steps.
pub trait Sink {
    /// The decision of the catalog tool at `position` starts (or, for a route, goes on).
    fn tool(&mut self, position: usize);
    /// One step of the current tool's decision.
    fn record(&mut self, layer: TraceLayer, outcome: TraceOutcome, source: Source, reason: Option<ReasonCode>);
}

/// No trace: every call is empty and inlined away.
pub struct NoTrace;

impl Sink for NoTrace {
    #[inline(always)]
    fn tool(&mut self, _position: usize) {}
    #[inline(always)]
    fn record(&mut self, _layer: TraceLayer, _outcome: TraceOutcome, _source: Source, _reason: Option<ReasonCode>) {}
}

/// A sink as the deciding code takes it: a `dyn Sink`, so that the traced and untraced decisions
/// share one compiled copy of each deciding function.
#[inline(always)]
pub fn erase<S: Sink>(sink: &mut S) -> &mut dyn Sink {
    sink
}
