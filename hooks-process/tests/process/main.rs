//! The process supervisor's fault suite: badly behaved children, each run
//! through `hermes_hooks_process`, must give the right result within a generous
//! bound and leave no process of theirs behind.

mod containment;
mod crowd;
mod escape;
mod line;
mod line_many;
mod run;
mod runtime;
mod sandbox;
mod sandbox_git;
mod sandbox_kernel_record;
mod sandbox_links;
mod sandbox_read_links;
mod sandbox_recorded_outside;
mod sandbox_recorded_reach;
mod sandbox_secrets;
mod sandbox_shared;
mod sandbox_sockets;
mod sandbox_tmp_sockets;
mod stopped_group;
mod support;
mod tree;
