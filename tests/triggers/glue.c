// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the test-only trigger module (see Kbuild): the `trigger` string
 * parameter, the two UBSAN triggers, the WARN and the debugobjects trigger. UBSAN is a
 * compiler instrumentation of C (scripts/Makefile.ubsan adds -fsanitize=shift
 * and -fsanitize=array-bounds to C flags only), so a Rust shift or index could
 * never reach lib/ubsan.c; the timer API the debugobjects trigger needs
 * (timer_setup, mod_timer) has no Rust binding in 7.3.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/timer.h>

static char trigger[32];
module_param_string(trigger, trigger, sizeof(trigger), 0400);
MODULE_PARM_DESC(trigger,
		 "The one deliberate bug to commit in init: none, lockdep, atomic-sleep, ubsan-shift, ubsan-bounds, warn, list, debugobjects, leak, kasan, overflow");

/* The parameter, NUL-terminated; empty when not set. */
const char *xehpg_trigger_name(void);
const char *xehpg_trigger_name(void)
{
	return trigger;
}

/*
 * 1 << amount with amount >= 32 is undefined for a 32-bit int: with
 * -fsanitize=shift clang calls __ubsan_handle_shift_out_of_bounds, which
 * prints "UBSAN: shift-out-of-bounds in <file>:<line>:<col>" (lib/ubsan.c,
 * ubsan_prologue). The amount comes from the caller at run time so the
 * compiler cannot see (and reject, or fold) the constant shift. Nothing is
 * corrupted: x86 masks the count, so the result is merely meaningless.
 */
int xehpg_trigger_ubsan_shift(unsigned int amount);
noinline int xehpg_trigger_ubsan_shift(unsigned int amount)
{
	int one = 1;

	return one << amount;
}

/*
 * a[index] with index == 4 on an int a[4] is out of the array's bounds: with
 * -fsanitize=array-bounds clang calls __ubsan_handle_out_of_bounds, which
 * prints "UBSAN: array-index-out-of-bounds in <file>:<line>:<col>"
 * (lib/ubsan.c). The array is the first member of a struct, so the access
 * lands on b[0], inside the same object: KASAN (which checks objects, not
 * array members) stays silent and its one report per boot is kept for the
 * kasan trigger.
 */
struct xehpg_trigger_pair {
	int a[4];
	int b[4];
};

int xehpg_trigger_ubsan_bounds(unsigned int index);
noinline int xehpg_trigger_ubsan_bounds(unsigned int index)
{
	struct xehpg_trigger_pair p = { .a = { 1, 2, 3, 4 }, .b = { 5, 6, 7, 8 } };
	/* Keep the object in memory so the indexed load really happens. */
	struct xehpg_trigger_pair *volatile q = &p;

	return q->a[index];
}

/*
 * WARN_ON with a condition that is true at run time: the trap handler prints
 * "WARNING: <file>:<line> at xehpg_trigger_warn+..." from __warn
 * (kernel/panic.c). In C rather than with Rust's warn_on!: that macro
 * includes rust/kernel/generated_arch_{warn,reachable}_asm.rs, which an
 * out-of-tree build then regenerates inside the shared kernel tree.
 */
void xehpg_trigger_warn(bool cond);
noinline void xehpg_trigger_warn(bool cond)
{
	WARN_ON(cond);
}

struct xehpg_trigger_timer {
	struct timer_list timer;
};

static void xehpg_trigger_timer_fn(struct timer_list *t)
{
}

/*
 * Frees an object holding a pending timer. With CONFIG_DEBUG_OBJECTS_FREE the
 * slab free hook (slab_free_hook, mm/slub.c) calls debug_check_no_obj_freed,
 * which finds the timer still active and prints "ODEBUG: free active (active
 * state 0) object: ... object type: timer_list hint: xehpg_trigger_timer_fn"
 * (debug_print_object, lib/debugobjects.c; at most 5 reports per boot). Its
 * fixup (timer_fixup_free, kernel/time/timer.c) deletes the timer before the
 * memory is freed, so nothing fires on freed memory.
 */
int xehpg_trigger_free_active_timer(void);
int xehpg_trigger_free_active_timer(void)
{
	struct xehpg_trigger_timer *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	timer_setup(&o->timer, xehpg_trigger_timer_fn, 0);
	mod_timer(&o->timer, jiffies + 3600 * HZ);
	kfree(o);
	return 0;
}
