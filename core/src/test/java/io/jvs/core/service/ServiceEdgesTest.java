package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Services and servers as ipvsadm names them, the weight range at both ends, thresholds, and the refusals
 * of operations on a server that is not a member.
 */
class ServiceEdgesTest
{
    @Test
    void shouldNameTheForwardingMethodsAsIpvsadm()
    {
        assertThat(ForwardMethod.NAT.ipvsadmOption()).isEqualTo("-m");
        assertThat(ForwardMethod.DR.ipvsadmOption()).isEqualTo("-g");
        assertThat(ForwardMethod.TUN.ipvsadmOption()).isEqualTo("-i");
        assertThat(ForwardMethod.NAT.listingName()).isEqualTo("Masq");
        assertThat(ForwardMethod.DR.listingName()).isEqualTo("Route");
        assertThat(ForwardMethod.TUN.listingName()).isEqualTo("Tunnel");
        assertThat(ForwardMethod.NAT.isInboundOnly()).isFalse();
        assertThat(ForwardMethod.DR.isInboundOnly()).isTrue();
        assertThat(ForwardMethod.TUN.isInboundOnly()).isTrue();
    }

    @Test
    void shouldNameServicesAsIpvsadmDoes()
    {
        assertThat(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.1"), 80).toRuleString())
            .isEqualTo("-t 10.0.0.1:80");
        assertThat(ServiceKey.of(Protocol.UDP, IpAddress.parse("2001:db8::1"), 53).toRuleString())
            .isEqualTo("-u [2001:db8::1]:53");
        assertThat(ServiceKey.ofFirewallMark(5, false).toRuleString()).isEqualTo("-f 5");
        assertThat(ServiceKey.ofFirewallMark(-1, true).toRuleString()).isEqualTo("-f 4294967295 -6");
        assertThat(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.1"), 80)).hasToString("TCP 10.0.0.1:80");
        assertThat(ServiceKey.ofFirewallMark(5, false)).hasToString("FWM 5");
        assertThat(ServiceKey.ofFirewallMark(5, true)).hasToString("FWM 5 IPv6");
    }

    @Test
    void shouldTakeWeightsFromZeroToIntMaxAndKeepThresholds()
    {
        final IpAddress address = IpAddress.parse("192.168.1.2");
        assertThat(new RealServer(address, 80, ForwardMethod.NAT, 0).weight()).isZero();
        final RealServer heavy = new RealServer(address, 80, ForwardMethod.NAT, RealServer.MAX_WEIGHT);
        assertThat(heavy.weight()).isEqualTo(Integer.MAX_VALUE);
        for (final int bad : new int[] {-1, Integer.MIN_VALUE})
        {
            assertThatIllegalArgumentException().isThrownBy(() -> new RealServer(address, 80, ForwardMethod.NAT, bad))
                .withMessage("weight out of range 0..2147483647: " + bad);
            assertThatIllegalArgumentException().isThrownBy(() -> heavy.weight(bad))
                .withMessage("weight out of range 0..2147483647: " + bad);
        }
        assertThat(heavy.weight()).isEqualTo(Integer.MAX_VALUE);
        heavy.thresholds(10, 5);
        assertThat(heavy.upperThreshold()).isEqualTo(10);
        assertThat(heavy.lowerThreshold()).isEqualTo(5);
    }

    @Test
    void shouldRefuseToChangeAServerThatIsNotAMember()
    {
        final ServiceTable table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m").applyTo(table);
        final VirtualService service = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        final RealServer stranger = new RealServer(IpAddress.parse("192.168.1.9"), 80, ForwardMethod.NAT, 1);
        assertThatIllegalArgumentException().isThrownBy(() -> service.editServer(stranger, 1, 0, 0, ForwardMethod.NAT))
            .withMessage("No such destination");
        assertThatIllegalArgumentException().isThrownBy(() -> service.setThresholds(stranger, 1, 0))
            .withMessage("No such destination");
        assertThat(service.servers()).hasSize(1);
        table.clear();
        assertThat(table.services()).isEmpty();
        assertThat(table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80))).isNull();
    }
}
