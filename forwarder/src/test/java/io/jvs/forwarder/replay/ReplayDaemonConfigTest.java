package io.jvs.forwarder.replay;

import io.jvs.core.net.IpPrefix;
import io.jvs.core.pipeline.MarkRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pcap4j.packet.EthernetPacket;
import org.pcap4j.packet.IpV4Packet;
import org.pcap4j.packet.Packet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Replay reads the daemon's configuration file unchanged: its services, its interfaces as ports 0..n-1, its
 * mark rules handed on, the daemon-only statements accepted.
 */
class ReplayDaemonConfigTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    private Path daemonConfig() throws Exception
    {
        Files.write(dir.resolve("dns.rules"), List.of(
            "-A -u 10.0.0.100:53 -s rr",
            "-a -u 10.0.0.100:53 -r 192.168.10.7:53 -g -w 1"));
        return Files.write(dir.resolve("box.conf"), List.of(
            "# a two-arm daemon's file",
            "interface eth0 port afxdp queues 2 xdp-mode drv zero-copy auto",
            "interface eth1 port afpacket queues 2",
            "workers 2 cpus 0-1",
            "idle spin",
            "connections 65536",
            "control /run/jvs/test.sock group jvs",
            "vip-arp on",
            "mark 1 in eth0 dst 10.0.0.0/24 proto tcp dport 80",
            "port 1 mac 02:00:00:00:00:21 ipv4 192.168.10.1",
            "neighbour 192.168.10.7 mac 02:00:00:00:07:07 port 1   # the DNS server, behind eth1",
            "set sloppy_tcp 1",
            "-A -t 10.0.0.100:80 -s rr",
            "-a -t 10.0.0.100:80 -r 192.168.10.8:80 -g -w 1",
            "rules dns.rules"));
    }

    @Test
    void shouldReplayADaemonsConfigurationWithTheServicesItHolds() throws Exception
    {
        final Path config = daemonConfig();
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.udp(T0, "100.64.0.9", 3333, "10.0.0.100", 53);
            trace.tcp(T0 + 1000, "100.64.0.9", 40000, "10.0.0.100", 80, TestTrace.SYN);
        }
        final Path out = dir.resolve("out.pcap");
        final ReplayReport report = new Replay(new ReplayOptions(null, config, in, null, out, false, null, 1, 4096, 0))
            .run();
        assertThat(report.forwarded()).isEqualTo(2);
        final List<Packet> packets = ReplayTest.readWithPcap4j(out);
        final EthernetPacket.EthernetHeader dns = packets.get(0).get(EthernetPacket.class).getHeader();
        assertThat(dns.getDstAddr().toString()).as("the neighbour statement's MAC").isEqualTo("02:00:00:00:07:07");
        assertThat(dns.getSrcAddr().toString()).as("out of port 1 (eth1), with its port statement's MAC")
            .isEqualTo("02:00:00:00:00:21");
        final EthernetPacket.EthernetHeader web = packets.get(1).get(EthernetPacket.class).getHeader();
        assertThat(web.getDstAddr().toString()).as("a server no statement places: port 0, a derived MAC")
            .isEqualTo("02:6a:c0:a8:0a:08");
        assertThat(web.getSrcAddr().toString()).as("port 0 (eth0) keeps replay's default MAC")
            .isEqualTo("02:00:00:00:00:10");
        assertThat(packets.get(1).get(IpV4Packet.class).getHeader().getDstAddr().getHostAddress())
            .isEqualTo("10.0.0.100");
        assertThat(ReplayReportFormat.table(report)).contains("rules: " + config + ", config: " + config);
        assertThat(ReplayReportFormat.json(report)).contains("\"rules\": \"" + config + "\"");
    }

    @Test
    void shouldMarkFramesByTheConfigsMarkStatementsForAFirewallMarkService() throws Exception
    {
        final Path config = Files.write(dir.resolve("marks.conf"), List.of(
            "mark 7 dst 10.0.0.0/24 proto tcp dport 80",
            "mark 9 src 100.64.0.0/16",
            "-A -f 7 -s rr",
            "-a -f 7 -r 192.168.10.8:80 -g -w 1",
            "-A -t 10.0.0.100:80 -s rr",
            "-a -t 10.0.0.100:80 -r 192.168.10.9:80 -g -w 1"));
        final Path in = dir.resolve("marks.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.tcp(T0, "100.64.0.9", 40000, "10.0.0.100", 80, TestTrace.SYN);
            trace.tcp(T0 + 1000, "100.64.0.9", 40001, "10.0.0.7", 80, TestTrace.SYN);
            trace.tcp(T0 + 2000, "100.64.0.9", 40002, "10.0.0.100", 81, TestTrace.SYN);
        }
        final Path out = dir.resolve("marks-out.pcap");
        final ReplayReport report = new Replay(new ReplayOptions(null, config, in, null, out, false, null, 1, 4096, 0))
            .run();
        // The first rule wins for both port-80 frames (the address service is not consulted for a marked frame);
        // the port-81 frame gets mark 9, which no service has, and is passed.
        assertThat(report.forwarded()).isEqualTo(2);
        assertThat(ReplayTest.readWithPcap4j(out)).extracting(packet -> packet.get(EthernetPacket.class).getHeader()
            .getDstAddr().toString()).containsExactly("02:6a:c0:a8:0a:08", "02:6a:c0:a8:0a:08");
    }

    @Test
    void shouldNumberInterfacesAsPortsAndHandTheMarkRulesOn() throws Exception
    {
        final ReplayConfig config = ReplayConfig.load(daemonConfig());
        assertThat(config.topology().ports()).hasSize(2);
        assertThat(config.topology().ports().get(0).mac()).isEqualTo(ReplayConfig.DEFAULT_PORT_MAC);
        assertThat(config.topology().ports().get(1).mac()).isEqualTo(0x02_00_00_00_00_21L);
        assertThat(config.settings().sloppyTcp()).isTrue();
        assertThat(config.markRules()).containsExactly(
            new MarkRule(1, 0, null, IpPrefix.parse("10.0.0.0/24"), 6, 80));
        assertThat(config.config().interfaces()).hasSize(2);

        final ReplayConfig bare = ReplayConfig.parse("box.conf", List.of("interface a", "interface b", "interface c"));
        assertThat(bare.topology().ports()).extracting(port -> port.mac()).as("DEFAULT_PORT_MAC + i")
            .containsExactly(0x02_00_00_00_00_10L, 0x02_00_00_00_00_11L, 0x02_00_00_00_00_12L);
        assertThat(bare.topology().gatewayV4().mac()).isEqualTo(ReplayConfig.DEFAULT_GATEWAY_MAC);
    }

    @Test
    void shouldRefuseServicesInBothPlacesOrInNeither() throws Exception
    {
        final Path config = daemonConfig();
        final Path rules = Files.write(dir.resolve("farm.rules"), List.of("-A -t 10.0.0.100:80 -s rr"));
        final Path in = dir.resolve("in.pcap");
        new TestTrace(in).close();
        assertThatThrownBy(() -> new Replay(new ReplayOptions(rules, config, in, null, null, false, null, 1, 4096, 0)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the services are given twice, by --rules " + rules + " and at " + config + ":13: give them " +
                "in one place");
        final Path box = Files.write(dir.resolve("plain.conf"), List.of("interface eth0"));
        assertThatThrownBy(() -> new Replay(new ReplayOptions(null, box, in, null, null, false, null, 1, 4096, 0)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("no services: give --rules FILE, or ipvsadm lines or a rules statement in " + box);
        assertThatThrownBy(() -> new ReplayOptions(null, null, in, null, null, false, null, 1, 4096, 0))
            .hasMessage("a replay needs services: --rules FILE, or a --config that gives them");
        assertThat(new Replay(new ReplayOptions(rules, box, in, null, null, false, null, 1, 4096, 0)).run()
            .framesIn()).as("a config without services and --rules").isZero();
    }
}
