package io.jvs.forwarder.replay;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplayConfigTest
{
    @Test
    void shouldReadEveryStatement() throws Exception
    {
        final ReplayConfig config = ReplayConfig.parse("box.conf", List.of(
            "# the edge box",
            "port 0 mac 02:00:00:00:00:20 mtu 9000 ipv4 10.1.0.1 ipv6 fd00::1",
            "port 1 mac 02:00:00:00:00:21",
            "gateway mac 02:00:00:00:00:fe family ipv4",
            "gateway mac 02:00:00:00:00:fd port 1 family ipv6",
            "neighbour 192.168.10.1 mac 02:00:00:00:01:01 port 1   # a real server",
            "set sloppy_tcp 1",
            "set pass_unmatched off",
            "set icmp_replies_per_second 10",
            "timeout tcp 900 udp 60",
            ""));
        final Topology topology = config.topology();
        assertThat(topology.ports()).hasSize(2);
        assertThat(topology.ports().get(0).mtu()).isEqualTo(9000);
        assertThat(topology.ports().get(0).ipv4()).isEqualTo(IpAddress.parse("10.1.0.1"));
        assertThat(topology.gatewayV4()).isEqualTo(new Topology.Neighbour(0, 0x02_00_00_00_00_FEL));
        assertThat(topology.gatewayV6()).isEqualTo(new Topology.Neighbour(1, 0x02_00_00_00_00_FDL));
        assertThat(topology.neighbours()).containsEntry(IpAddress.parse("192.168.10.1"),
            new Topology.Neighbour(1, 0x02_00_00_00_01_01L));
        final DataPlaneSettings settings = config.settings();
        assertThat(settings.sloppyTcp()).isTrue();
        assertThat(settings.passUnmatched()).isFalse();
        assertThat(settings.icmpRepliesPerSecond()).isEqualTo(10);
        assertThat(config.connectionTimeouts().current().tcpSeconds()).isEqualTo(900);
        assertThat(config.connectionTimeouts().current().udpSeconds()).isEqualTo(60);
        assertThat(config.connectionTimeouts().current().tcpFinSeconds()).isEqualTo(120);
    }

    @Test
    void shouldDefaultToTheSynthesisersAddresses()
    {
        final ReplayConfig config = ReplayConfig.defaults();
        assertThat(config.topology().ports().get(0).mac()).isEqualTo(ReplayConfig.DEFAULT_PORT_MAC);
        assertThat(config.topology().gatewayV4().mac()).isEqualTo(ReplayConfig.DEFAULT_GATEWAY_MAC);
        assertThat(config.settings()).isEqualTo(DataPlaneSettings.defaults());
        assertThat(ReplayConfig.derivedMac(IpAddress.parse("192.168.10.1"))).isEqualTo(0x02_6A_C0_A8_0A_01L);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "route 10.0.0.0/8 via 1.2.3.4|unknown statement \"route\"",
        "port 0 mtu 1500|port 0: needs mac",
        "port 0 mac 02:00:00:00:00:zz|is not a MAC address",
        "port 0 mac 02:00:00:00:00:01 mtu 12|mtu must be 68..65535",
        "port 0 mac 02:00:00:00:00:01 ipv4 fd00::1|is not an IPv4 address",
        "gateway port 0|gateway: needs mac",
        "gateway mac 02:00:00:00:00:01 family ipx|family is ipv4, ipv6 or both",
        "neighbour 10.0.0.1|needs mac",
        "set sloppy_tcp maybe|the value is 0 or 1",
        "set no_such_switch 1|unknown switch",
        "timeout tcp|needs name/seconds pairs",
        "timeout tcp 0|tcp must be 1..",
        "timeout ssl 10|unknown name \"ssl\"",
        "neighbour 10.0.0.1 mac 02:00:00:00:00:01 port 3|not defined"})
    void shouldRefuseABadLineNamingFileLineAndReason(final String line, final String reason)
    {
        assertThatThrownBy(() -> ReplayConfig.parse("box.conf", List.of("# first", "set sloppy_tcp 1", line)))
            .isInstanceOf(RuleException.class)
            .hasMessageContaining("box.conf:3")
            .hasMessageContaining(reason);
    }
}
