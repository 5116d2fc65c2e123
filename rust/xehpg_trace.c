// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's trace events and dynamic debug call site: C because 7.3's Rust
 * cannot define either for a module (rust/xehpg_trace.h says why). Each
 * function is the tracepoint call alone, so what Rust pays per call with the
 * event off is the call and the tracepoint's static-key test; the record,
 * the string copies included, is made only when the event is on.
 */
#include <linux/device.h>
#include <linux/dev_printk.h>

/* The one file that instantiates the events. */
#define CREATE_TRACE_POINTS
#include "xehpg_trace.h"

void xehpg_trace_h2g(const struct device *dev, u32 action, u32 fence, u32 len, u32 tail,
		     bool fast)
{
	trace_xehpg_h2g(dev, action, fence, len, tail, fast);
}

void xehpg_trace_g2h(const struct device *dev, u32 type, u32 action, u32 fence, u32 len,
		     u32 head)
{
	trace_xehpg_g2h(dev, type, action, fence, len, head);
}

void xehpg_trace_ctx_register(const struct device *dev, const char *engine, size_t engine_len,
			      u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_register(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_ctx_sched_enable(const struct device *dev, const char *engine,
				  size_t engine_len, u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_sched_enable(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_ctx_sched_disable(const struct device *dev, const char *engine,
				   size_t engine_len, u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_sched_disable(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_ctx_sched_done(const struct device *dev, const char *engine,
				size_t engine_len, u32 guc_id, u32 guc_class, bool enabled)
{
	trace_xehpg_ctx_sched_done(dev, engine, engine_len, guc_id, guc_class, enabled);
}

void xehpg_trace_ctx_deregister(const struct device *dev, const char *engine,
				size_t engine_len, u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_deregister(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_ctx_deregister_done(const struct device *dev, const char *engine,
				     size_t engine_len, u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_deregister_done(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_ctx_reset(const struct device *dev, const char *engine, size_t engine_len,
			   u32 guc_id, u32 guc_class)
{
	trace_xehpg_ctx_reset(dev, engine, engine_len, guc_id, guc_class);
}

void xehpg_trace_engine_failure(const struct device *dev, u32 guc_class, u32 instance,
				u32 reason)
{
	trace_xehpg_engine_failure(dev, guc_class, instance, reason);
}

void xehpg_trace_gt_reset(const struct device *dev, const char *phase, size_t phase_len,
			  const char *why, size_t why_len)
{
	trace_xehpg_gt_reset(dev, phase, phase_len, why, why_len);
}

void xehpg_trace_irq(const struct device *dev, const char *source, size_t source_len, u32 bank,
		     u32 bit, u32 vector)
{
	trace_xehpg_irq(dev, source, source_len, bank, bit, vector);
}

void xehpg_trace_vf_provision(const struct device *dev, u32 vf, const char *step,
			      size_t step_len)
{
	trace_xehpg_vf_provision(dev, vf, step, step_len);
}

void xehpg_trace_vf_flr(const struct device *dev, u32 vf, const char *input, size_t input_len,
			const char *from, size_t from_len, const char *to, size_t to_len)
{
	trace_xehpg_vf_flr(dev, vf, input, input_len, from, from_len, to, to_len);
}

#if defined(CONFIG_DYNAMIC_DEBUG_CORE)
void xehpg_dbg(const struct device *dev, const void *args)
{
	/* Kbuild defines DYNAMIC_DEBUG_MODULE for this file: a call site also with only the core. */
	dev_dbg(dev, "%pA", args);
}
#endif
