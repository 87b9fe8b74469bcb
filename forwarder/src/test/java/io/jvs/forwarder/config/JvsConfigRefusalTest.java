package io.jvs.forwarder.config;

import io.jvs.core.io.IoMessages;
import io.jvs.core.rules.RuleException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Bad lines: each refused with {@code file:line: reason}, the line the statement that is wrong is on, and the
 * reason exactly.
 */
class JvsConfigRefusalTest
{
    /**
     * @param lines the file, lines separated by " ; " (a comment and a good statement come first, so the line
     *              numbers start at 3).
     */
    private static String refusal(final String lines)
    {
        final List<String> file = new ArrayList<>(List.of("# the box", "set sloppy_tcp 1"));
        file.addAll(Arrays.asList(lines.split(" ; ")));
        try
        {
            JvsConfig.parse("box.conf", file, Path.of(""));
        }
        catch (final RuleException ex)
        {
            assertThat(ex.source()).isEqualTo("box.conf");
            assertThat(ex.getMessage()).isEqualTo("box.conf:" + ex.line() + ": " + ex.reason());
            return ex.getMessage();
        }
        throw new AssertionError("accepted: " + file);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "interface|box.conf:3: interface: needs a device name, e.g. interface eth0 port afxdp queues 2",
        "interface eth0 ; interface eth0 queues 2|box.conf:4: interface eth0 is already defined on line 3",
        "interface eth0 port dpdk|box.conf:3: interface eth0: port is afxdp or afpacket, not \"dpdk\"",
        "interface eth0 queues 0|box.conf:3: interface eth0: queues must be 1..256, not 0",
        "interface eth0 queues many|box.conf:3: interface eth0: queues must be a number, not \"many\"",
        "interface eth0 queues|box.conf:3: interface eth0: \"queues\" needs a value",
        "interface eth0 queues 2 queues 3|box.conf:3: interface eth0: queues is given twice",
        "interface eth0 xdp-mode hw|box.conf:3: interface eth0: xdp-mode is drv or skb, not \"hw\"",
        "interface eth0 zero-copy maybe|box.conf:3: interface eth0: zero-copy is auto, on or off, not \"maybe\"",
        "interface eth0 port afpacket xdp-mode skb|box.conf:3: interface eth0: xdp-mode and zero-copy are for port " +
            "afxdp, not afpacket",
        "interface eth0 mtu 9000|box.conf:3: interface eth0: unknown option \"mtu\" (port, queues, xdp-mode, " +
            "zero-copy)",
        "interface averyveryverylongname|box.conf:3: interface averyveryverylongname: a device name has at most 15 " +
            "characters, not 21",
        "interface eth0:1|box.conf:3: interface eth0:1: not a device name (\".\", \"..\", '/' and ':' are not allowed)",
        "workers 0|box.conf:3: workers: the number of workers must be 1..256, not 0",
        "workers|box.conf:3: workers: needs a count, e.g. workers 4 cpus 0-3",
        "workers 2 ; idle spin ; workers 3|box.conf:5: workers is already given on line 3",
        "workers 2 pin 0-1|box.conf:3: workers: unknown option \"pin\" (cpus)",
        "workers 2 cpus 0,,1|box.conf:3: workers: cpus \"0,,1\" has an empty item (write the list as 0,2-3)",
        "workers 2 cpus 3-1|box.conf:3: workers: cpus: the range 3-1 runs backwards",
        "workers 3 cpus 0-1,1|box.conf:3: workers: cpus: CPU 1 is listed twice",
        "workers 4 cpus 0,2-3|box.conf:3: workers 4: cpus 0,2-3 names 3 CPUs; give one CPU a worker",
        "workers 2 cpus 0,x|box.conf:3: workers: cpus \"0,x\": \"x\" is not a CPU number (0..8191)",
        "workers 1 cpus 9000|box.conf:3: workers: cpus \"9000\": \"9000\" is not a CPU number (0..8191)",
        "idle sleepy|box.conf:3: idle: the mode is adaptive, spin, yield, backoff or wait, not \"sleepy\"",
        "idle|box.conf:3: idle: needs one of adaptive, spin, yield, backoff, wait",
        "connections 100|box.conf:3: connections: the capacity must be 1024..67108864, not 100",
        "connections lots|box.conf:3: connections: the capacity must be a number, not \"lots\"",
        "control jvs.sock|box.conf:3: control: the socket path must be absolute, not \"jvs.sock\"",
        "control /run/jvs.sock owner jvs|box.conf:3: control: unknown option \"owner\" (group)",
        "control|box.conf:3: control: needs the socket's path, e.g. control /run/jvs/jvs.sock [group jvs]",
        "vip-arp yes|box.conf:3: vip-arp: needs on or off, not \"yes\"",
        "vip-arp on ; vip-arp off|box.conf:4: vip-arp is already given on line 3",
        "mark 0|box.conf:3: mark: the mark must be 1..4294967295 (or 0x1..0xffffffff), not \"0\"",
        "mark 4294967296|box.conf:3: mark: the mark must be 1..4294967295 (or 0x1..0xffffffff), not \"4294967296\"",
        "mark|box.conf:3: mark: needs a mark, e.g. mark 1 dst 10.0.0.100 proto tcp dport 80",
        "mark 1 dport 80|box.conf:3: mark 1: dport needs proto tcp, udp or sctp",
        "mark 1 proto icmp dport 80|box.conf:3: mark 1: dport needs proto tcp, udp or sctp",
        "mark 1 proto tcp dport 0|box.conf:3: mark 1: dport must be 1..65535, not 0",
        "mark 1 src 10.0.0.0/33|box.conf:3: mark 1: src 10.0.0.0/33: prefix length 33 is not in 0..32",
        "mark 1 dst 10.0.0.300|box.conf:3: mark 1: dst 10.0.0.300: IPv4 octet above 255 in 10.0.0.300",
        "mark 1 proto gre|box.conf:3: mark 1: proto is tcp, udp, sctp, icmp, icmpv6 or a number 1..255, not \"gre\"",
        "mark 1 sport 80|box.conf:3: mark 1: unknown option \"sport\" (in, src, dst, proto, dport)",
        "mark 1 dst 10.0.0.0/8 dst 10.1.0.0/16|box.conf:3: mark 1: dst is given twice",
        "mark 1 in eth9 ; interface eth0 ; interface eth1|box.conf:3: mark 1: in eth9: no interface statement names " +
            "eth9 (interfaces: eth0, eth1)",
        "mark 2 in eth0|box.conf:3: mark 2: in eth0: no interface statement names eth0 (the file has no interface " +
            "statements)",
        "interface eth0 ; port 1 mac 02:00:00:00:00:01|box.conf:4: port 1: no interface statement makes port 1 " +
            "(1 interface: ports 0..0)",
        "port 1 mac 02:00:00:00:00:01|box.conf:3: port 1: ports are numbered from 0 without gaps, and port 0 is " +
            "not defined",
        "gateway mac 02:00:00:00:00:01 port 2 ; port 0 mac 02:00:00:00:00:10|box.conf:3: the gateway is on a port " +
            "that is not defined",
        "neighbour 10.0.0.1 mac 02:00:00:00:00:01 port 1 ; interface eth0|box.conf:3: neighbour 10.0.0.1 is on port " +
            "1, which is not defined",
        "rules|box.conf:3: rules: needs one file name (no spaces), e.g. rules farm.rules",
        "-A -t 10.0.0.100:80 -s wrr ; -a -t 10.0.0.100:80 -r 192.168.1.1:80 -w 2147483648|box.conf:4: illegal weight " +
            "specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m|box.conf:3: Service not defined",
        "-A -t 10.0.0.100:80 ; interface eth0 ; -A -t 10.0.0.100:80 -s rr|box.conf:5: Service already exists",
        "-X -t 10.0.0.100:80|box.conf:3: invalid command `-X': a rules line starts with -A, -E, -D, -C, -a, -e, -d " +
            "or --set",
        "timeout tcp 0|box.conf:3: timeout: tcp must be 1..2147483, not 0",
        "timeout tcp 900 tcp 100|box.conf:3: timeout: tcp is given twice",
        "timeout tcp 900 udp 300 ; timeout udp 60|box.conf:4: timeout: udp is given twice",
        "timeout tcp 900 ; --set 600 0 0|box.conf:4: --set: the tcp timeout is given twice (here and in a timeout " +
            "statement or another --set)",
        "--set 0 0 60 ; timeout udp 30|box.conf:4: timeout: udp is given twice",
        "mark 1 dst 1.2.3.4/8|box.conf:3: mark 1: dst 1.2.3.4/8: the address has bits set past the prefix length " +
            "(did you mean 1.0.0.0/8?)",
        "set sloppy_tcp maybe|box.conf:3: set sloppy_tcp: the value is 0 or 1, not maybe"})
    void shouldRefuseABadLineWithFileLineAndReason(final String lines, final String message)
    {
        assertThat(refusal(lines)).isEqualTo(message);
    }

    @Test
    void shouldListTheStatementsForAnUnknownOne()
    {
        assertThat(refusal("route 10.0.0.0/8 via 192.0.2.1")).isEqualTo("box.conf:3: unknown statement \"route\" " +
            "(interface, workers, idle, connections, control, vip-arp, offload, mark, port, gateway, neighbour, set, " +
            "timeout, rules, or an ipvsadm rule: -A, -E, -D, -C, -a, -e, -d, --set)");
    }

    @Test
    void shouldTakeOffloadAutoOnOrOffOnceAndRefuseAnythingElse()
    {
        assertThat(refusal("offload yes")).isEqualTo("box.conf:3: offload: needs auto, on or off, not \"yes\"");
        assertThat(refusal("offload")).isEqualTo("box.conf:3: offload: needs auto, on or off");
    }

    @Test
    void shouldRefuseMarkPrefixesOfTwoFamiliesAndASocketPathTooLongForSunPath()
    {
        assertThat(refusal("mark 1 src 10.0.0.0/8 dst fd00::/64")).startsWith("box.conf:3: mark 1: source 10.0.0.0/8 " +
            "and destination fd00:").endsWith("/64 are of different families");
        final String path = "/run/" + "j".repeat(103);
        assertThat(refusal("control " + path)).isEqualTo("box.conf:3: control: the socket path is 108 bytes; a unix " +
            "socket path holds at most 107");
        assertThat(refusal("control /run/" + "j".repeat(102) + " ; idle none"))
            .as("107 bytes are fine").isEqualTo("box.conf:4: idle: the mode is adaptive, spin, yield, backoff or " +
                "wait, not \"none\"");
    }

    @Test
    void shouldRefuseAFileThatIsNotUtf8NamingTheFirstLineThatIsNot(@TempDir final Path dir) throws Exception
    {
        final String text = "interface eth0\n# caf\u00e9 is fine\nworkers 1 \u00ff\n";
        final Path file = Files.write(dir.resolve("box.conf"), text.getBytes(StandardCharsets.UTF_8));
        final Path latin = Files.write(dir.resolve("latin1.conf"), text.getBytes(StandardCharsets.ISO_8859_1));

        assertThatThrownBy(() -> JvsConfig.load(latin)).isInstanceOf(RuleException.class)
            .hasMessage(latin + ":2: not UTF-8 text");
        assertThatThrownBy(() -> JvsConfig.load(file)).isInstanceOf(RuleException.class)
            .hasMessageStartingWith(file + ":3: workers");
    }

    @Test
    void shouldRefuseAFifoAsTheFileOrItsRulesAtOnceInsteadOfWaitingForAWriter(@TempDir final Path dir)
        throws Exception
    {
        final Path fifo = dir.resolve("box.conf");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () ->
            assertThatThrownBy(() -> JvsConfig.load(fifo)).isInstanceOf(IOException.class)
                .satisfies(ex -> assertThat(IoMessages.describe(fifo, (IOException)ex)).isEqualTo(fifo +
                    ": not a regular file (a FIFO or a device): name the file itself")));

        final Path rules = dir.resolve("farm.rules");
        assertThat(new ProcessBuilder("mkfifo", rules.toString()).start().waitFor()).isZero();
        final Path file = Files.writeString(dir.resolve("jvs.conf"), "rules farm.rules\n");
        assertTimeoutPreemptively(Duration.ofSeconds(5), () ->
            assertThatThrownBy(() -> JvsConfig.load(file)).isInstanceOf(RuleException.class)
                .hasMessage(file + ":1: rules farm.rules: " + rules +
                    ": not a regular file (a FIFO or a device): name the file itself"));
    }

    @Test
    void shouldRefuseNothingButTheFirstBadLine()
    {
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("idle never", "workers 0"), Path.of("")))
            .hasMessage("box.conf:1: idle: the mode is adaptive, spin, yield, backoff or wait, not \"never\"");
    }

    @Test
    void shouldRefuseARuleTheTableRefusesBeforeALaterBadStatement(@TempDir final Path dir) throws Exception
    {
        // The table refuses a rule only once the rules before it are applied, after the lines after it are read.
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("-A -t 10.0.0.1:80 -s bogus", "foo bar"),
            Path.of(""))).hasMessageStartingWith("box.conf:1: ");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("-a -t 10.0.0.1:80 -r 10.1.1.1:80",
            "workers zero"), Path.of(""))).hasMessage("box.conf:1: Service not defined");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("-a -t 10.0.0.1:80 -r 10.1.1.1:80",
            "interface eth0", "port 3 mac 02:00:00:00:00:01"), Path.of(""))).hasMessage("box.conf:1: Service not defined");
        Files.write(dir.resolve("orphan.rules"), List.of("-a -t 10.0.0.100:80 -r 192.168.1.1:80"));
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("rules orphan.rules", "workers zero"), dir))
            .hasMessage(dir.resolve("orphan.rules") + ":1: Service not defined");
        // An included file's rules count after those of the lines before its statement, and before its bad line.
        Files.write(dir.resolve("tail.rules"), List.of("-a -t 10.0.0.1:80 -r 10.1.1.1:80", "-X nonsense"));
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("-A -t 10.0.0.1:80", "rules tail.rules"), dir))
            .hasMessageStartingWith(dir.resolve("tail.rules") + ":2: ");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("rules tail.rules"), dir))
            .hasMessage(dir.resolve("tail.rules") + ":1: Service not defined");
        // A bad statement before the refused rule is still the one reported.
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("workers zero",
            "-a -t 10.0.0.1:80 -r 10.1.1.1:80"), Path.of(""))).hasMessageStartingWith("box.conf:1: workers");
        assertThatThrownBy(() -> JvsConfig.parse("box.conf", List.of("interface eth0", "port 3 mac 02:00:00:00:00:01",
            "-a -t 10.0.0.1:80 -r 10.1.1.1:80"), Path.of(""))).hasMessageStartingWith("box.conf:2: port 3");
    }
}
