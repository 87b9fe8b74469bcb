package io.jvs.core.sched;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler names, as ipvsadm's -s takes them.
 */
class SchedulerKindTest
{
    @Test
    void shouldFindEachSchedulerByItsIpvsadmNameInAnyCase()
    {
        for (final String name : new String[] {"rr", "wrr", "lc", "wlc", "lblc", "lblcr", "dh", "sh", "sed", "nq",
            "fo", "ovf", "mh", "twos"})
        {
            final SchedulerKind kind = SchedulerKind.byName(name);
            assertThat(kind).as(name).isNotNull();
            assertThat(kind.schedulerName()).isEqualTo(name);
            assertThat(SchedulerKind.byName(name.toUpperCase(java.util.Locale.ROOT))).isSameAs(kind);
        }
        assertThat(SchedulerKind.byName("fastest")).isNull();
        assertThat(SchedulerKind.byName(SchedulerKind.DEFAULT_NAME).schedulerName()).isEqualTo("wlc");
    }
}
