package io.jvs.forwarder.config;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.port.xdp.XdpBindMode;
import io.jvs.nativebindings.bpf.XdpMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The configuration language: every statement read into {@link JvsConfig}, ipvsadm lines and included rules
 * files, the defaults. The refusals are in {@link JvsConfigRefusalTest}.
 */
class JvsConfigTest
{
    /** What {@code ipvsadm -S -n} prints for a box with NAT, DR, TUN, persistent, fwmark and IPv6 services. */
    static final List<String> SAVED = List.of(
        "-A -t 10.0.0.100:80 -s wrr",
        "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m -w 4",
        "-a -t 10.0.0.100:80 -r 192.168.10.2:80 -m -w 3",
        "-A -t 10.0.0.100:443 -s wlc -p 360",
        "-a -t 10.0.0.100:443 -r 192.168.10.1:443 -m -w 1",
        "-a -t 10.0.0.100:443 -r 192.168.10.2:443 -m -w 1",
        "-A -u 10.0.0.53:53 -s rr",
        "-a -u 10.0.0.53:53 -r 192.168.10.5:53 -g -w 1",
        "-A -f 7 -s sh -b sh-port",
        "-a -f 7 -r 192.168.10.9:0 -i -w 2 -x 100 -y 50",
        "-A -t [fd00::100]:80 -s mh -b mh-port",
        "-a -t [fd00::100]:80 -r [fd00::1]:80 -g -w 1",
        "-a -t [fd00::100]:80 -r [fd00::2]:80 -g -w 0");

    @TempDir
    Path dir;

    private static JvsConfig parse(final String... lines) throws RuleException
    {
        return JvsConfig.parse("box.conf", List.of(lines), Path.of(""));
    }

    @Test
    void shouldReadEveryDaemonStatement() throws Exception
    {
        final JvsConfig config = parse(
            "# a two-arm box",
            "mark 9 in eth1 src 10.1.0.0/16 dst 198.51.100.0/24 proto tcp dport 443   # eth1 is defined below",
            "interface eth0 port afxdp queues 4 xdp-mode skb zero-copy on",
            "INTERFACE Eth1 PORT AFPACKET QUEUES 2",
            "interface eth1",
            "interface veth-b zero-copy off",
            "workers 3 cpus 0,2-3",
            "idle backoff",
            "connections 65536",
            "control /run/jvs/box.sock group jvs",
            "vip-arp on",
            "offload off",
            "mark 0x10 in Eth1",
            "mark 2147483647 proto udp dport 53",
            "mark 3 dst fd00::/64 proto sctp",
            "mark 5 proto 47",
            "mark 6 proto icmpv6 src 2001:db8::1");
        assertThat(config.source()).isEqualTo("box.conf");
        assertThat(config.interfaces()).containsExactly(
            new InterfaceConfig("eth0", PortKind.AFXDP, 4, XdpMode.SKB, XdpBindMode.ZEROCOPY, 3),
            new InterfaceConfig("Eth1", PortKind.AFPACKET, 2, XdpMode.DRV, XdpBindMode.AUTO, 4),
            new InterfaceConfig("eth1", PortKind.AFXDP, InterfaceConfig.DEVICE_QUEUES, XdpMode.DRV,
                XdpBindMode.AUTO, 5),
            new InterfaceConfig("veth-b", PortKind.AFXDP, InterfaceConfig.DEVICE_QUEUES, XdpMode.DRV,
                XdpBindMode.COPY, 6));
        assertThat(config.interfaceIndex("eth1")).isEqualTo(2);
        assertThat(config.interfaceIndex("ETH1")).isEqualTo(-1);
        assertThat(config.portCount()).isEqualTo(4);
        assertThat(config.workers()).isEqualTo(3);
        assertThat(config.workerCount(64, device -> 1)).as("given, whatever the CPUs").isEqualTo(3);
        assertThat(config.cpus()).containsExactly(0, 2, 3);
        assertThat(config.idle()).isEqualTo(IdleMode.BACKOFF);
        assertThat(config.connections()).isEqualTo(65536);
        assertThat(config.control()).isEqualTo(Path.of("/run/jvs/box.sock"));
        assertThat(config.controlGroup()).isEqualTo("jvs");
        assertThat(config.vipArp()).isTrue();
        assertThat(config.offload()).isEqualTo(OffloadMode.OFF);
        assertThat(config.markRules()).as("in file order, in names resolved to interface indexes").containsExactly(
            new MarkRule(9, 2, IpPrefix.parse("10.1.0.0/16"), IpPrefix.parse("198.51.100.0/24"), 6, 443),
            new MarkRule(16, 1, null, null, 0, 0),
            new MarkRule(Integer.MAX_VALUE, MarkRule.ANY_PORT, null, null, 17, 53),
            new MarkRule(3, MarkRule.ANY_PORT, null, IpPrefix.parse("fd00::/64"), 132, 0),
            new MarkRule(5, MarkRule.ANY_PORT, null, null, 47, 0),
            new MarkRule(6, MarkRule.ANY_PORT, IpPrefix.parse("2001:db8::1/128"), null, 58, 0));
        assertThat(config.definesServices()).isFalse();
        assertThat(config.rules()).isEmpty();
    }

    @Test
    void shouldDefaultWhatTheFileLeavesOut() throws Exception
    {
        final JvsConfig config = JvsConfig.defaults();
        assertThat(config.source()).isEqualTo("defaults");
        assertThat(config.interfaces()).isEmpty();
        assertThat(config.workers()).isZero();
        assertThat(config.workerCount(8, device -> 1)).isEqualTo(1);
        assertThat(config.cpus()).isEmpty();
        assertThat(config.idle()).isEqualTo(IdleMode.ADAPTIVE);
        assertThat(config.connections()).isEqualTo(1 << 20);
        assertThat(config.control()).isEqualTo(Path.of("/run/jvs/jvs.sock"));
        assertThat(config.controlGroup()).isNull();
        assertThat(config.vipArp()).isFalse();
        assertThat(config.offload()).as("wherever it can").isEqualTo(OffloadMode.AUTO);
        assertThat(config.markRules()).isEmpty();
        assertThat(config.ports()).isEmpty();
        assertThat(config.portCount()).isEqualTo(1);
        assertThat(config.gatewayV4()).isNull();
        assertThat(config.gatewayV6()).isNull();
        assertThat(config.timeouts()).isEqualTo(new JvsConfig.Timeouts(0, 0, 0));
        assertThat(config.definesServices()).isFalse();
        assertThat(config).isEqualTo(JvsConfig.parse("defaults", List.of("# nothing but a comment", "   "), dir));

        final JvsConfig oneInterface = parse("interface eth0");
        assertThat(oneInterface.interfaces().get(0))
            .isEqualTo(new InterfaceConfig("eth0", PortKind.AFXDP, InterfaceConfig.DEVICE_QUEUES, XdpMode.DRV,
                XdpBindMode.AUTO, 1));
    }

    @Test
    void shouldDefaultToOneWorkerPerQueueUpToTheCpus() throws Exception
    {
        final JvsConfig config = parse("interface eth0 queues 4", "interface eth1 queues 2");
        assertThat(config.workerCount(8, device -> 1)).as("the most queues of any interface").isEqualTo(4);
        assertThat(config.workerCount(3, device -> 1)).as("at most one a CPU").isEqualTo(3);
        assertThat(config.workerCount(0, device -> 1)).isEqualTo(1);
    }

    @Test
    void shouldTakeEveryReceiveQueueOfAnAfXdpDeviceWhenQueuesIsLeftOut() throws Exception
    {
        final JvsConfig config = parse("interface eth0", "interface eth1 port afpacket");
        assertThat(config.interfaces().get(0).queues(4)).as("afxdp: the device's").isEqualTo(4);
        assertThat(config.interfaces().get(1).queues(4)).as("afpacket: one, its workers share it by fanout")
            .isEqualTo(1);
        assertThat(config.workerCount(8, device -> device.equals("eth0") ? 4 : 8))
            .as("a worker for each of eth0's queues").isEqualTo(4);
        assertThat(config.workerCount(2, device -> 4)).as("at most one a CPU").isEqualTo(2);
        assertThat(parse("interface eth0 queues 2").workerCount(8, device -> 4)).as("as given").isEqualTo(2);
    }

    @Test
    void shouldNameEverySetSwitchAsTheSetStatementTakesIt() throws Exception
    {
        final java.util.Map<String, Integer> defaults = JvsConfig.switches(JvsConfig.defaults().settings());
        for (final String name : defaults.keySet())
        {
            final int other = name.equals("icmp_replies_per_second") ? 7 : 1 - defaults.get(name);
            final JvsConfig config = parse("set " + name + " " + other);

            final java.util.Map<String, Integer> expected = new java.util.LinkedHashMap<>(defaults);
            expected.put(name, other);
            assertThat(JvsConfig.switches(config.settings())).as(name).containsExactlyEntriesOf(expected);
        }
    }

    @Test
    void shouldTakeTheLocalityExpirationsInSeconds() throws Exception
    {
        assertThat(JvsConfig.defaults().schedulerSettings(2).lblcExpirationNs()).isEqualTo(86_400_000_000_000L);
        final JvsConfig config = parse("set lblc_expiration 600", "set lblcr_expiration 0");
        assertThat(config.schedulerSettings(2).lblcExpirationNs()).isEqualTo(600_000_000_000L);
        assertThat(config.schedulerSettings(2).lblcrExpirationNs()).isZero();
        assertThat(config.schedulerSettings(2).workers()).isEqualTo(2);
        assertThatThrownBy(() -> parse("set lblc_expiration -1")).hasMessageContaining("0..2147483");
        assertThatThrownBy(() -> parse("set lblcr_expiration 1h")).hasMessageContaining("lblcr_expiration");
    }

    @Test
    void shouldKeepTheReplayStatements() throws Exception
    {
        final JvsConfig config = parse(
            "interface eth0",
            "interface eth1",
            "port 1 mac 02:00:00:00:00:21 mtu 9000 ipv4 10.1.0.1",
            "gateway mac 02:00:00:00:00:fe family ipv4",
            "neighbour 10.1.0.11 mac 02:00:00:00:01:01 port 1",
            "neighbor 10.1.0.12 mac 02:00:00:00:01:02 port 1",
            "set sloppy_tcp 1",
            "timeout tcp 900 udp 60");
        assertThat(config.ports()).containsExactly(
            new Topology.Port(1, 0x02_00_00_00_00_21L, 9000, IpAddress.parse("10.1.0.1"), null));
        assertThat(config.gatewayV4()).isEqualTo(new Topology.Neighbour(0, 0x02_00_00_00_00_FEL));
        assertThat(config.gatewayV6()).as("family ipv4 only").isNull();
        assertThat(config.neighbours()).containsEntry(IpAddress.parse("10.1.0.12"),
            new Topology.Neighbour(1, 0x02_00_00_00_01_02L)).hasSize(2);
        assertThat(config.settings().sloppyTcp()).isTrue();
        assertThat(config.timeouts()).isEqualTo(new JvsConfig.Timeouts(900, 0, 60));
        assertThat(config.connectionTimeouts().current().tcpSeconds()).isEqualTo(900);
    }

    @Test
    void shouldTakeIpvsadmLinesInOrderWithTheirLines() throws Exception
    {
        final JvsConfig config = parse(
            "interface eth0",
            "-A -t 10.0.0.100:80 -s wrr     # the web farm",
            "",
            "-a -t 10.0.0.100:80 -r 192.168.10.1:8080 -m -w 2",
            "ipvsadm -a -t 10.0.0.100:80 -r 192.168.10.2:8080 -m",
            "--set 900 120 300");
        assertThat(config.definesServices()).isTrue();
        assertThat(config.servicesAt()).isEqualTo("box.conf:2");
        assertThat(config.rules()).extracting(ServiceRule::line).containsExactly(2, 4, 5);
        assertThat(config.rules()).extracting(ServiceRule::source).containsOnly("box.conf");
        assertThat(config.rules().get(0).text()).isEqualTo("-A -t 10.0.0.100:80 -s wrr");
        assertThat(config.timeouts()).as("--set is the timeout statement the daemon and replay read")
            .isEqualTo(new JvsConfig.Timeouts(900, 120, 300));
        final ServiceTable table = config.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        final VirtualService service = table.find(ServiceKey.of(io.jvs.core.net.Protocol.TCP,
            IpAddress.parse("10.0.0.100"), 80));
        assertThat(service.servers()).extracting(RealServer::weight).containsExactlyInAnyOrder(2, 1);
    }

    @Test
    void shouldTakeTheTimeoutsOfAnIncludedRulesFilesSetLine() throws Exception
    {
        Files.write(dir.resolve("farm.rules"), List.of("-A -u 10.0.0.100:53 -s rr", "--set 0 45 20"));
        final JvsConfig config =
            JvsConfig.parse("box.conf", List.of("interface eth0", "timeout tcp 600", "rules farm.rules"), dir);
        assertThat(config.timeouts()).isEqualTo(new JvsConfig.Timeouts(600, 45, 20));
        assertThat(config.connectionTimeouts().current().udpSeconds()).isEqualTo(20);
        assertThat(config.rules()).hasSize(1);
    }

    @Test
    void shouldReadASavedIpvsadmFilePastedInAsRulesFileReadsIt() throws Exception
    {
        final Path saved = Files.write(dir.resolve("saved.rules"), SAVED);
        final ServiceTable expected = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.load(saved, expected);

        final List<String> lines = new ArrayList<>(List.of("interface eth0", "workers 2", "# ipvsadm -S -n:"));
        lines.addAll(SAVED);
        lines.add("mark 7 dst 10.0.0.0/24");
        final JvsConfig pasted = JvsConfig.parse("box.conf", lines, dir);
        assertThat(describe(pasted.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE))))
            .isEqualTo(describe(expected)).hasSize(SAVED.size());

        final JvsConfig included = JvsConfig.parse("box.conf", List.of("interface eth0", "rules saved.rules"), dir);
        assertThat(describe(included.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE))))
            .isEqualTo(describe(expected));
        assertThat(included.rules()).extracting(ServiceRule::command)
            .containsExactlyElementsOf(pasted.rules().stream().map(ServiceRule::command).toList());
    }

    @Test
    void shouldIncludeARulesFileRelativeToTheConfigurationsDirectoryInPlace() throws Exception
    {
        final Path etc = Files.createDirectories(dir.resolve("etc/jvs"));
        Files.createDirectories(etc.resolve("farms"));
        Files.write(etc.resolve("farms/web.rules"), List.of(
            "# the web farm",
            "-A -t 10.0.0.100:80 -s rr",
            "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m"));
        final Path empty = Files.write(dir.resolve("empty.rules"), List.of());
        final Path box = Files.write(etc.resolve("box.conf"), List.of(
            "interface eth0",
            "-A -u 10.0.0.53:53 -s rr",
            "rules farms/web.rules",
            "-a -t 10.0.0.100:80 -r 192.168.10.2:80 -m",
            "rules " + empty));
        final JvsConfig config = JvsConfig.load(box);
        final String web = etc.resolve("farms/web.rules").toString();
        assertThat(config.rules()).extracting(rule -> rule.source() + ":" + rule.line()).containsExactly(
            box + ":2", web + ":2", web + ":3", box + ":4");
        assertThat(config.servicesAt()).isEqualTo(box + ":2");
        assertThat(config.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE)).services()).hasSize(2);

        final JvsConfig onlyEmpty = JvsConfig.parse("box.conf", List.of("rules empty.rules"), dir);
        assertThat(onlyEmpty.definesServices()).as("an included file gives the services, none").isTrue();
        assertThat(onlyEmpty.servicesAt()).isEqualTo("box.conf:1");
        assertThat(onlyEmpty.rules()).isEmpty();
    }

    @Test
    void shouldRefuseARuleOfAnIncludedFileNamingThatFileAndLine() throws Exception
    {
        Files.write(dir.resolve("bad.rules"), List.of("-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -w 2147483648"));
        Files.write(dir.resolve("orphan.rules"), List.of("# no -A first", "-a -t 10.0.0.100:80 -r 192.168.1.1:80"));
        Files.write(dir.resolve("nested.rules"), List.of("-A -t 10.0.0.100:80", "rules bad.rules"));
        Files.write(dir.resolve("mixed.rules"), List.of("interface eth0"));
        final String bad = dir.resolve("bad.rules").toString();
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("workers 1", "rules bad.rules"), dir))
            .isInstanceOf(RuleException.class).hasMessage(bad + ":2: illegal weight specified");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("rules orphan.rules"), dir))
            .hasMessage(dir.resolve("orphan.rules") + ":2: Service not defined");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("rules nested.rules"), dir))
            .hasMessage(dir.resolve("nested.rules") + ":2: rules statements do not nest: an included rules file " +
                "holds ipvsadm rules only");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("rules mixed.rules"), dir))
            .hasMessage(dir.resolve("mixed.rules") + ":1: an included rules file holds ipvsadm rules only, not " +
                "\"interface\" statements (they go in box.conf)");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("", "rules missing.rules"), dir))
            .hasMessage("box.conf:2: rules missing.rules: cannot read " + dir.resolve("missing.rules") +
                ": no such file");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("-A -t 10.0.0.100:80", "rules ."), dir))
            .hasMessageStartingWith("box.conf:2: rules .: cannot read " + dir.resolve("."));
    }

    @Test
    void shouldParseTheSameFileToEqualConfigurationsAndAChangedOneToAnother() throws Exception
    {
        final List<String> lines = List.of("interface eth0", "mark 1 dst 10.0.0.0/8", "-A -f 1 -s sh",
            "-a -f 1 -r 192.168.1.1:0 -g -w 1");
        final JvsConfig first = JvsConfig.parse("box.conf", lines, dir);
        assertThat(JvsConfig.parse("box.conf", lines, dir)).as("a reload of an unchanged file").isEqualTo(first);
        final List<String> changed = new ArrayList<>(lines);
        changed.set(3, "-a -f 1 -r 192.168.1.1:0 -g -w 2");
        final JvsConfig second = JvsConfig.parse("box.conf", changed, dir);
        assertThat(second).isNotEqualTo(first);
        assertThat(second.rules().subList(0, 1)).isEqualTo(first.rules().subList(0, 1));
        assertThat(second.rules().get(1).command()).isNotEqualTo(first.rules().get(1).command());
    }

    @Test
    void shouldApplyRulesToAGivenTableAndSayWhichLineItRefuses() throws Exception
    {
        final JvsConfig config = parse("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m");
        final ServiceTable table = config.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        assertThat(table.services()).hasSize(1);
        assertThatThrownBy(() -> config.applyRules(table)).as("the same services again")
            .isInstanceOf(RuleException.class)
            .hasMessage("box.conf:1: Service already exists");
    }

    /** Every service with its settings and servers, one line each, in the table's order. */
    static List<String> describe(final ServiceTable table)
    {
        final List<String> lines = new ArrayList<>();
        for (final VirtualService service : table.services())
        {
            lines.add(service.key() + " " + service.settings());
            for (final RealServer server : service.servers())
            {
                lines.add("  " + server.address() + ":" + server.port() + " " + server.forwardMethod() + " w" +
                    server.weight() + " x" + server.upperThreshold() + " y" + server.lowerThreshold());
            }
        }
        return lines;
    }
}
