package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.ServiceTable;
import org.junit.jupiter.api.Test;

import static io.jvs.core.control.Fixtures.ip;
import static io.jvs.core.control.Fixtures.tcp;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernel's ranges at both ends, over the running table: ip_vs_set_timeout's 0..INT_MAX / HZ seconds, an IPv6
 * service's prefix 1..128 (ip_vs_add_service), a weight 0..INT_MAX and the thresholds' order (ip_vs_add_dest), a
 * destination of the other family only when tunnelled, and jvs's table sizes as ENOMEM.
 */
class KernelChecksRangesTest
{
    private static final ServiceKey WEB = tcp("10.0.0.1", 80);
    private static final ServiceKey WEB6 = tcp("2001:db8::1", 80);

    private final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
    private final KernelChecks.Lookup lookup = KernelChecks.lookup(table);

    private KernelError check(final RuleCommand command)
    {
        return KernelChecks.check(command, lookup);
    }

    private static RuleCommand put(final ServiceKey key, final String address, final ForwardMethod method,
        final int weight, final int upper, final int lower)
    {
        return new RuleCommand.PutServer(false, key, ip(address), 80, method, weight, upper, lower);
    }

    @Test
    void shouldTakeTimeoutsFrom0ToIntMaxOverHz()
    {
        final int max = ConnectionTimeouts.MAX_SECONDS;
        assertThat(check(new RuleCommand.SetTimeouts(0, 0, 0))).isNull();
        assertThat(check(new RuleCommand.SetTimeouts(max, max, max))).isNull();
        assertThat(check(new RuleCommand.SetTimeouts(max + 1, 0, 0))).isEqualTo(KernelError.INVALID);
        assertThat(check(new RuleCommand.SetTimeouts(0, max + 1, 0))).isEqualTo(KernelError.INVALID);
        assertThat(check(new RuleCommand.SetTimeouts(0, 0, max + 1))).isEqualTo(KernelError.INVALID);
        assertThat(check(new RuleCommand.SetTimeouts(0, 0, -1))).isEqualTo(KernelError.INVALID);
    }

    @Test
    void shouldTakeAnIpv6PrefixFrom1To128()
    {
        for (final int prefix : new int[] {1, 64, 128})
        {
            assertThat(check(new RuleCommand.AddService(WEB6,
                new ServiceSettings("rr", SchedulerFlags.NONE, true, 60, prefix, false)))).as("/%d", prefix).isNull();
        }
        for (final int prefix : new int[] {0, 129})
        {
            assertThat(check(new RuleCommand.AddService(WEB6,
                new ServiceSettings("rr", SchedulerFlags.NONE, true, 60, prefix, false)))).as("/%d", prefix)
                .isEqualTo(KernelError.INVALID);
        }
        // An IPv4 service's mask is a netmask, checked by ipvsadm; the kernel takes /0.
        assertThat(check(new RuleCommand.AddService(WEB,
            new ServiceSettings("rr", SchedulerFlags.NONE, true, 60, 0, false)))).isNull();
    }

    @Test
    void shouldTakeWeightsFrom0ToIntMaxAndThresholdsWithTheLowerNotAboveTheUpper()
    {
        RuleParser.parse("-A -t 10.0.0.1:80 -s rr").applyTo(table);
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, 0, 0, 0))).isNull();
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, 65536, 10, 10))).isNull();
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, Integer.MAX_VALUE, 0, 0))).isNull();
        // A u32 weight above INT_MAX arrives as a negative int: ip_vs_add_dest's ERANGE.
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, -1, 0, 0))).isEqualTo(KernelError.OUT_OF_RANGE);
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, 1, 10, 11))).isEqualTo(KernelError.OUT_OF_RANGE);
        // Compared unsigned, as the kernel's u32 fields: an upper threshold above 2^31 is not below a small lower.
        assertThat(check(put(WEB, "192.168.1.1", ForwardMethod.NAT, 1, -1, 5))).isNull();
    }

    @Test
    void shouldTakeADestinationOfTheOtherFamilyOnlyWhenTunnelled()
    {
        RuleParser.parse("-A -t 10.0.0.1:80 -s rr").applyTo(table);
        RuleParser.parse("-A -t [2001:db8::1]:80 -s rr").applyTo(table);
        assertThat(check(put(WEB, "2001:db8::7", ForwardMethod.NAT, 1, 0, 0))).isEqualTo(KernelError.INVALID);
        assertThat(check(put(WEB, "2001:db8::7", ForwardMethod.DR, 1, 0, 0))).isEqualTo(KernelError.INVALID);
        assertThat(check(put(WEB, "2001:db8::7", ForwardMethod.TUN, 1, 0, 0))).isNull();
        assertThat(check(put(WEB6, "192.168.1.7", ForwardMethod.NAT, 1, 0, 0))).isEqualTo(KernelError.INVALID);
        assertThat(check(put(WEB6, "192.168.1.7", ForwardMethod.TUN, 1, 0, 0))).isNull();
        assertThat(check(put(WEB6, "2001:db8::7", ForwardMethod.NAT, 1, 0, 0))).isNull();
    }

    @Test
    void shouldRefuseAServiceOrServerBeyondTheTablesSizesAsOutOfMemory()
    {
        final KernelChecks.Limits limits = new KernelChecks.Limits(2, 2);
        final RuleCommand third = new RuleCommand.AddService(ServiceKey.of(Protocol.UDP, ip("10.0.0.1"), 53),
            ServiceSettings.of("rr", false));
        RuleParser.parse("-A -t 10.0.0.1:80 -s rr").applyTo(table);
        assertThat(KernelChecks.check(third, lookup, limits)).as("the second of two").isNull();
        RuleParser.parse("-A -t 10.0.0.2:80 -s rr").applyTo(table);
        assertThat(KernelChecks.check(third, lookup, limits)).isEqualTo(KernelError.NO_MEMORY);

        final RuleCommand server = put(WEB, "192.168.1.3", ForwardMethod.NAT, 1, 0, 0);
        RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.1").applyTo(table);
        assertThat(KernelChecks.check(server, lookup, limits)).as("the second of two").isNull();
        RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.2").applyTo(table);
        assertThat(KernelChecks.check(server, lookup, limits)).isEqualTo(KernelError.NO_MEMORY);
        assertThat(KernelChecks.check(put(tcp("10.0.0.2", 80), "192.168.1.3", ForwardMethod.NAT, 1, 0, 0), lookup,
            limits)).as("another service's servers do not count").isNull();
    }
}
