package io.jvs.forwarder.daemon;

import java.util.List;
import java.util.Set;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conductor's part of steering by prefix: which of the mark statements' prefixes go into the tries (those
 * wider than a host; a host goes into the hash maps), and how {@link DataPlaneMaps} brings the tries in step
 * around a snapshot, adding before it is published and removing after, in the kernel's maps. Needs root for the
 * maps, as CI has.
 */
class DataPlaneMapsTest
{
    private static final List<MarkRule> MARKS = List.of(
        new MarkRule(1, MarkRule.ANY_PORT, null, IpPrefix.parse("203.0.113.0/24"), 0, 0),
        new MarkRule(2, MarkRule.ANY_PORT, IpPrefix.parse("198.51.100.0/25"), IpPrefix.parse("192.0.2.9"), 17, 53),
        new MarkRule(3, MarkRule.ANY_PORT, IpPrefix.parse("2001:db8:cafe::/48"), null, 0, 0),
        new MarkRule(4, MarkRule.ANY_PORT, IpPrefix.parse("10.1.2.3"), IpPrefix.parse("0.0.0.0/0"), 6, 0));

    @Test
    void shouldTakeTheMarksPrefixesWiderThanAHostForTheTries()
    {
        assertThat(Conductor.destinationPrefixes(MARKS)).containsExactly(IpPrefix.parse("203.0.113.0/24"),
            IpPrefix.parse("0.0.0.0/0"));
        assertThat(Conductor.sourcePrefixes(MARKS)).containsExactly(IpPrefix.parse("198.51.100.0/25"),
            IpPrefix.parse("2001:db8:cafe::/48"));
    }

    @Test
    void shouldAddPrefixesBeforeASnapshotAndRemoveThoseItNoLongerNamesAfter() throws Exception
    {
        final IpPrefix old = IpPrefix.parse("203.0.113.0/24");
        final IpPrefix next = IpPrefix.parse("192.0.2.0/24");
        final IpPrefix source = IpPrefix.parse("2001:db8:cafe::/48");
        final Set<IpAddress> none = Set.of();
        try (XdpVipFilter filter = XdpVipFilter.create(Syscalls.create(), 16))
        {
            final DataPlaneMaps maps = new DataPlaneMaps(filter);
            maps.update(none, none, none, Set.of(old), Set.of(source), false);
            assertThat(filter.inDestinationPrefix(address("203.0.113.9"))).isTrue();
            assertThat(filter.inSourcePrefix(address("2001:db8:cafe:7::1"))).isTrue();

            maps.update(none, none, none, Set.of(next), Set.of(), true);
            assertThat(maps.destinationPrefixes()).as("before the publication").containsExactlyInAnyOrder(old, next);
            assertThat(filter.inDestinationPrefix(address("203.0.113.9"))).isTrue();
            assertThat(filter.inDestinationPrefix(address("192.0.2.200"))).isTrue();

            maps.update(none, none, none, Set.of(next), Set.of(), false);
            assertThat(maps.destinationPrefixes()).as("after it").containsExactly(next);
            assertThat(maps.sourcePrefixes()).isEmpty();
            assertThat(filter.inDestinationPrefix(address("203.0.113.9"))).isFalse();
            assertThat(filter.inDestinationPrefix(address("192.0.2.200"))).isTrue();
            assertThat(filter.inSourcePrefix(address("2001:db8:cafe:7::1"))).isFalse();
        }
    }

    @Test
    void shouldKeepTheSetsWithoutAFilter()
    {
        final DataPlaneMaps maps = new DataPlaneMaps(null);
        maps.update(Set.of(), Set.of(), Set.of(), Set.of(IpPrefix.parse("203.0.113.0/24")), Set.of(), false);

        assertThat(maps.destinationPrefixes()).containsExactly(IpPrefix.parse("203.0.113.0/24"));
    }

    private static java.net.InetAddress address(final String text)
    {
        return IpAddress.parse(text).toInetAddress();
    }
}
