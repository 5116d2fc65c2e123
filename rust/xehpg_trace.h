/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's trace events (TRACE_SYSTEM xehpg) and the functions Rust calls
 * to emit them (rust/trace.rs). Documentation/tracing.rst lists every event.
 *
 * 7.3's Rust has no way for a module to define trace events of its own:
 * `kernel::declare_trace!` (rust/kernel/tracepoint.rs) names the tracepoint's
 * static key and its C stub through the kernel crate's bindings, which are
 * generated when the kernel is built, from the kernel's own headers; an
 * out-of-tree module cannot add its events there. So the events are C, here,
 * and each has one small C function (rust/xehpg_trace.c) whose body is the
 * tracepoint call: its static-key test, then the record only when the event
 * is enabled. Strings come from Rust as pointer and length (no NUL needed)
 * and are copied into the record only then.
 *
 * The first part (the prototypes) is read once; the events below it are read
 * again by <trace/define_trace.h> in the one file that defines
 * CREATE_TRACE_POINTS (rust/xehpg_trace.c).
 */
#ifndef XEHPG_TRACE_API_H
#define XEHPG_TRACE_API_H

#include <linux/device.h>
#include <linux/types.h>

/* Defined in rust/xehpg_trace.c, called by Rust (rust/trace.rs). Any context. */

void xehpg_trace_h2g(const struct device *dev, u32 action, u32 fence, u32 len, u32 tail,
		     bool fast);
void xehpg_trace_g2h(const struct device *dev, u32 type, u32 action, u32 fence, u32 len,
		     u32 head);
void xehpg_trace_ctx_register(const struct device *dev, const char *engine, size_t engine_len,
			      u32 guc_id, u32 guc_class);
void xehpg_trace_ctx_sched_enable(const struct device *dev, const char *engine,
				  size_t engine_len, u32 guc_id, u32 guc_class);
void xehpg_trace_ctx_sched_disable(const struct device *dev, const char *engine,
				   size_t engine_len, u32 guc_id, u32 guc_class);
void xehpg_trace_ctx_sched_done(const struct device *dev, const char *engine,
				size_t engine_len, u32 guc_id, u32 guc_class, bool enabled);
void xehpg_trace_ctx_deregister(const struct device *dev, const char *engine,
				size_t engine_len, u32 guc_id, u32 guc_class);
void xehpg_trace_ctx_deregister_done(const struct device *dev, const char *engine,
				     size_t engine_len, u32 guc_id, u32 guc_class);
void xehpg_trace_ctx_reset(const struct device *dev, const char *engine, size_t engine_len,
			   u32 guc_id, u32 guc_class);
void xehpg_trace_engine_failure(const struct device *dev, u32 guc_class, u32 instance,
				u32 reason);
void xehpg_trace_gt_reset(const struct device *dev, const char *phase, size_t phase_len,
			  const char *why, size_t why_len);
void xehpg_trace_irq(const struct device *dev, const char *source, size_t source_len, u32 bank,
		     u32 bit, u32 vector);
void xehpg_trace_vf_provision(const struct device *dev, u32 vf, const char *step,
			      size_t step_len);
void xehpg_trace_vf_flr(const struct device *dev, u32 vf, const char *input, size_t input_len,
			const char *from, size_t from_len, const char *to, size_t to_len);

/*
 * A debug message of the driver's, `args` a Rust `fmt::Arguments` (printk's
 * %pA): a dynamic debug call site (one for the whole module), so it prints
 * only once turned on through <debugfs>/dynamic_debug/control or the
 * module's dyndbg parameter (Documentation/tracing.rst). Only built where the
 * kernel has dynamic debug; Rust uses the kernel crate's dev_dbg! elsewhere.
 */
#if defined(CONFIG_DYNAMIC_DEBUG_CORE)
void xehpg_dbg(const struct device *dev, const void *args);
#endif

#endif /* XEHPG_TRACE_API_H */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM xehpg

#if !defined(XEHPG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XEHPG_TRACE_H

#include <linux/tracepoint.h>

/* HXG message types as TP_printk shows them (include/xehpg_abi.h has the codes). */
#define xehpg_show_hxg_type(t)					\
	__print_symbolic(t,					\
			 { 0, "request" },			\
			 { 1, "event" },			\
			 { 2, "fast_request" },			\
			 { 3, "busy" },				\
			 { 5, "retry" },			\
			 { 6, "failure" },			\
			 { 7, "success" },			\
			 { 255, "malformed" })

/* One host-to-GuC message written into H2G and published. */
TRACE_EVENT(xehpg_h2g,
	TP_PROTO(const struct device *dev, u32 action, u32 fence, u32 len, u32 tail, bool fast),
	TP_ARGS(dev, action, fence, len, tail, fast),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__field(u32, action)
		__field(u32, fence)
		__field(u32, len)
		__field(u32, tail)
		__field(bool, fast)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->action = action;
		__entry->fence = fence;
		__entry->len = len;
		__entry->tail = tail;
		__entry->fast = fast;
	),
	TP_printk("dev=%s action=0x%04x fence=0x%04x len=%u tail=%u fast=%u",
		  __get_str(dev), __entry->action, __entry->fence, __entry->len,
		  __entry->tail, __entry->fast)
);

/*
 * One GuC-to-host message read out of G2H, before it is handled. (The
 * argument is not called `head`: the perf side of the macros has a variable
 * of that name.)
 */
TRACE_EVENT(xehpg_g2h,
	TP_PROTO(const struct device *dev, u32 type, u32 action, u32 fence, u32 len, u32 ring_head),
	TP_ARGS(dev, type, action, fence, len, ring_head),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__field(u32, type)
		__field(u32, action)
		__field(u32, fence)
		__field(u32, len)
		__field(u32, head)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->type = type;
		__entry->action = action;
		__entry->fence = fence;
		__entry->len = len;
		__entry->head = ring_head;
	),
	TP_printk("dev=%s type=%s action=0x%04x fence=0x%04x len=%u head=%u",
		  __get_str(dev), xehpg_show_hxg_type(__entry->type), __entry->action,
		  __entry->fence, __entry->len, __entry->head)
);

/* A step of a GuC submission context's life. */
DECLARE_EVENT_CLASS(xehpg_ctx,
	TP_PROTO(const struct device *dev, const char *engine, size_t engine_len, u32 guc_id,
		 u32 guc_class),
	TP_ARGS(dev, engine, engine_len, guc_id, guc_class),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__string_len(engine, engine, engine_len)
		__field(u32, guc_id)
		__field(u32, guc_class)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(engine);
		__entry->guc_id = guc_id;
		__entry->guc_class = guc_class;
	),
	TP_printk("dev=%s engine=%s guc_id=%u guc_class=%u",
		  __get_str(dev), __get_str(engine), __entry->guc_id, __entry->guc_class)
);

#define XEHPG_CTX_EVENT(name)							\
	DEFINE_EVENT(xehpg_ctx, name,						\
		TP_PROTO(const struct device *dev, const char *engine,		\
			 size_t engine_len, u32 guc_id, u32 guc_class),		\
		TP_ARGS(dev, engine, engine_len, guc_id, guc_class))

/* REGISTER_CONTEXT accepted by the GuC. */
XEHPG_CTX_EVENT(xehpg_ctx_register);
/* SCHED_CONTEXT_MODE_SET enable about to be sent. */
XEHPG_CTX_EVENT(xehpg_ctx_sched_enable);
/* SCHED_CONTEXT_MODE_SET disable about to be sent. */
XEHPG_CTX_EVENT(xehpg_ctx_sched_disable);
/* DEREGISTER_CONTEXT about to be sent. */
XEHPG_CTX_EVENT(xehpg_ctx_deregister);
/* DEREGISTER_CONTEXT_DONE received. */
XEHPG_CTX_EVENT(xehpg_ctx_deregister_done);
/* CONTEXT_RESET_NOTIFICATION received: the GuC reset the context's engine. */
XEHPG_CTX_EVENT(xehpg_ctx_reset);

/* SCHED_CONTEXT_MODE_DONE received, with the state it confirms. */
TRACE_EVENT(xehpg_ctx_sched_done,
	TP_PROTO(const struct device *dev, const char *engine, size_t engine_len, u32 guc_id,
		 u32 guc_class, bool enabled),
	TP_ARGS(dev, engine, engine_len, guc_id, guc_class, enabled),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__string_len(engine, engine, engine_len)
		__field(u32, guc_id)
		__field(u32, guc_class)
		__field(bool, enabled)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(engine);
		__entry->guc_id = guc_id;
		__entry->guc_class = guc_class;
		__entry->enabled = enabled;
	),
	TP_printk("dev=%s engine=%s guc_id=%u guc_class=%u enabled=%u",
		  __get_str(dev), __get_str(engine), __entry->guc_id, __entry->guc_class,
		  __entry->enabled)
);

/* ENGINE_FAILURE_NOTIFICATION: the GuC could not reset an engine. */
TRACE_EVENT(xehpg_engine_failure,
	TP_PROTO(const struct device *dev, u32 guc_class, u32 instance, u32 reason),
	TP_ARGS(dev, guc_class, instance, reason),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__field(u32, guc_class)
		__field(u32, instance)
		__field(u32, reason)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->guc_class = guc_class;
		__entry->instance = instance;
		__entry->reason = reason;
	),
	TP_printk("dev=%s guc_class=%u instance=%u reason=0x%08x",
		  __get_str(dev), __entry->guc_class, __entry->instance, __entry->reason)
);

/* A GT reset moved on: queued, started, done or failed, and why it was asked for. */
TRACE_EVENT(xehpg_gt_reset,
	TP_PROTO(const struct device *dev, const char *phase, size_t phase_len, const char *why,
		 size_t why_len),
	TP_ARGS(dev, phase, phase_len, why, why_len),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__string_len(phase, phase, phase_len)
		__string_len(why, why, why_len)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(phase);
		__assign_str(why);
	),
	TP_printk("dev=%s phase=%s why=%s", __get_str(dev), __get_str(phase), __get_str(why))
);

/* The interrupt top half dispatched one source's identity. */
TRACE_EVENT(xehpg_irq,
	TP_PROTO(const struct device *dev, const char *source, size_t source_len, u32 bank,
		 u32 bit, u32 vector),
	TP_ARGS(dev, source, source_len, bank, bit, vector),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__string_len(source, source, source_len)
		__field(u32, bank)
		__field(u32, bit)
		__field(u32, vector)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(source);
		__entry->bank = bank;
		__entry->bit = bit;
		__entry->vector = vector;
	),
	TP_printk("dev=%s source=%s bank=%u bit=%u vector=0x%04x",
		  __get_str(dev), __get_str(source), __entry->bank, __entry->bit,
		  __entry->vector)
);

/* A step of provisioning or giving back one VF. */
TRACE_EVENT(xehpg_vf_provision,
	TP_PROTO(const struct device *dev, u32 vf, const char *step, size_t step_len),
	TP_ARGS(dev, vf, step, step_len),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__field(u32, vf)
		__string_len(step, step, step_len)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->vf = vf;
		__assign_str(step);
	),
	TP_printk("dev=%s vf=%u step=%s", __get_str(dev), __entry->vf, __get_str(step))
);

/* One VF's FLR moved from one state to the next on an input. */
TRACE_EVENT(xehpg_vf_flr,
	TP_PROTO(const struct device *dev, u32 vf, const char *input, size_t input_len,
		 const char *from, size_t from_len, const char *to, size_t to_len),
	TP_ARGS(dev, vf, input, input_len, from, from_len, to, to_len),
	TP_STRUCT__entry(
		__string(dev, dev_name(dev))
		__field(u32, vf)
		__string_len(input, input, input_len)
		__string_len(from, from, from_len)
		__string_len(to, to, to_len)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->vf = vf;
		__assign_str(input);
		__assign_str(from);
		__assign_str(to);
	),
	TP_printk("dev=%s vf=%u input=%s from=%s to=%s", __get_str(dev), __entry->vf,
		  __get_str(input), __get_str(from), __get_str(to))
);

#endif /* XEHPG_TRACE_H */

/* Where <trace/define_trace.h> finds this file again: Kbuild adds rust/ to the include path. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xehpg_trace
#include <trace/define_trace.h>
