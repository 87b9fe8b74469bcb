package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;

import java.util.HexFormat;
import java.util.List;

/**
 * Golden frames, the way Katran tests its data plane: an input frame, the configuration below, the
 * frame expected out and the verdict, run in order through one pipeline (a reply follows its request).
 * The expected frames were built byte by byte by the tests' own frame builder, not by the pipeline;
 * the tests assert the pipeline reproduces them and the benchmarks replay them.
 * <pre>
 *   -A -t 10.0.0.100:80 -s rr            -a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m
 *   -A -t 10.0.0.101:80 -s rr            -a -t 10.0.0.101:80 -r 192.168.1.3:80 -g
 *   -A -u 10.0.0.102:53 -s rr            -a -u 10.0.0.102:53 -r 192.168.1.4:53 -i
 *   -A -t [2001:db8::100]:80 -s rr       -a -t [2001:db8::100]:80 -r [2001:db8:1::2]:80 -m
 *   port 0: MAC 02:00:00:00:00:10, 10.0.0.1, 2001:db8::1, MTU 1500; gateway 02:00:00:00:00:fe;
 *   servers' MACs 02:00:00:00:01:02 .. 02:00:00:00:01:05 in the order above.
 * </pre>
 */
public final class GoldenFrames
{
    /**
     * One case.
     *
     * @param name        a short name.
     * @param description what it shows.
     * @param input       the frame in, as hex.
     * @param output      the frame expected out, as hex.
     * @param verdict     the expected verdict, as {@link io.jvs.core.packet.Verdict#toString(int)} prints it.
     */
    public record GoldenFrame(String name, String description, String input, String output, String verdict)
    {
        public byte[] inputBytes()
        {
            return HexFormat.of().parseHex(input);
        }

        public byte[] outputBytes()
        {
            return HexFormat.of().parseHex(output);
        }
    }

    /** The rules of every case, in ipvsadm's language. */
    public static final List<String> RULES = List.of(
        "-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
        "-A -t 10.0.0.101:80 -s rr", "-a -t 10.0.0.101:80 -r 192.168.1.3:80 -g",
        "-A -u 10.0.0.102:53 -s rr", "-a -u 10.0.0.102:53 -r 192.168.1.4:53 -i",
        "-A -t [2001:db8::100]:80 -s rr", "-a -t [2001:db8::100]:80 -r [2001:db8:1::2]:80 -m");

    /** The cases, in the order they run. */
    public static final List<GoldenFrame> CASES = List.of(
        new GoldenFrame("NAT_SYN",
            "NAT: a client's SYN to VIP:80 goes to 192.168.1.2:8080, TTL 64 -> 63",
            "0200000000100200000000fe080045000028123440004006f3fdc63364070a0000649c400050000003e8000000005002ffffdacb0000",
            "020000000102020000000010080045000028123440003f063db7c6336407c0a801029c401f90000003e8000000005002ffff04450000",
            "transmit:0"),
        new GoldenFrame("NAT_REPLY",
            "NAT: the server's SYN-ACK leaves as if from VIP:80, towards the gateway",
            "0200000000100200000001020800450000281234400040063cb7c0a80102c63364071f909c40000003e8000007d05012fffffc640000",
            "0200000000fe020000000010080045000028123440003f06f4fd0a000064c633640700509c40000003e8000007d05012ffffd2eb0000",
            "transmit:0"),
        new GoldenFrame("NAT_DATA",
            "NAT: a data segment of the connection, 100 bytes of payload",
            "0200000000100200000000fe08004500008c123440004006f399c63364070a0000649c400050000003e8000007d05010ffff27800000030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8",
            "02000000010202000000001008004500008c123440003f063d53c6336407c0a801029c401f90000003e8000007d05010ffff50f90000030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8",
            "transmit:0"),
        new GoldenFrame("DR_SYN",
            "DR: only the MACs, the TTL and the IP checksum change",
            "0200000000100200000000fe080045000028123440004006f3fcc63364070a0000659c410050000003e8000000005002ffffdac90000",
            "020000000103020000000010080045000028123440003f06f4fcc63364070a0000659c410050000003e8000000005002ffffdac90000",
            "transmit:0"),
        new GoldenFrame("TUN_UDP",
            "TUN: IPIP from the port's address 10.0.0.1 to 192.168.1.4, inner TTL 63, DF copied",
            "0200000000100200000000fe080045000030123440004011f3e8c63364070a00006613880035001c207c030a11181f262d343b424950575e656c737a8188",
            "020000000104020000000010080045000044000040003f0470090a000001c0a8010445000030123440003f11f4e8c63364070a00006613880035001c207c030a11181f262d343b424950575e656c737a8188",
            "transmit:0"),
        new GoldenFrame("NAT6_SYN",
            "NAT over IPv6 to [2001:db8:1::2]:80",
            "0200000000100200000000fe86dd600000000014064020010db8ffff0000000000000000000720010db80000000000000000000001009c420050000003e8000000005002ffffb2ef0000",
            "02000000010502000000001086dd600000000014063f20010db8ffff0000000000000000000720010db80001000000000000000000029c420050000003e8000000005002ffffb3ec0000",
            "transmit:0"),
        new GoldenFrame("TTL_EXPIRED",
            "TTL 1: answered with ICMP time-exceeded from the virtual address, as IPVS's decrement_ttl answers",
            "0200000000100200000000fe08004500002812344000010632fec63364070a0000649c430050000003e8000000005002ffffdac80000",
            "0200000000fe020000000010080045c00044000000004001455b0a000064c63364070b0029b9000000004500002812344000010632fec63364070a0000649c430050000003e8000000005002ffffdac80000",
            "transmit:0"),
        new GoldenFrame("NO_SERVICE",
            "Not a service: passed to the host unchanged",
            "0200000000100200000000fe080045000028123440004006f460c63364070a0000019c440016000003e8000000005002ffffdb640000",
            "0200000000100200000000fe080045000028123440004006f460c63364070a0000019c440016000003e8000000005002ffffdb640000",
            "pass"),
        new GoldenFrame("NO_CONNECTION",
            "An ACK of no known connection: the host's business, unchanged",
            "0200000000100200000000fe080045000028123440004006f3fdc63364070a0000649c450050000003e8000007d05010ffffd2e80000",
            "0200000000100200000000fe080045000028123440004006f3fdc63364070a0000649c450050000003e8000007d05010ffffd2e80000",
            "pass"),
        new GoldenFrame("TRUNCATED",
            "An IPv4 header cut short: dropped as truncated",
            "0200000000100200000000fe080045000028123440004006f3fdc6336407",
            "0200000000100200000000fe080045000028123440004006f3fdc6336407",
            "drop:truncated"),
        new GoldenFrame("BAD_IHL",
            "IHL 4 (16 bytes): dropped as bad-ihl",
            "0200000000100200000000fe080044000028123440004006f3fdc63364070a0000649c470050000003e8000000005002ffffdac40000",
            "0200000000100200000000fe080044000028123440004006f3fdc63364070a0000649c470050000003e8000000005002ffffdac40000",
            "drop:bad-ihl"),
        new GoldenFrame("ARP",
            "ARP is the host's: passed unchanged",
            "ffffffffffff0200000000fe080600010800060400010200000000fe0a0000fe0000000000000a000001",
            "ffffffffffff0200000000fe080600010800060400010200000000fe0a0000fe0000000000000a000001",
            "pass"));

    private GoldenFrames()
    {
    }

    /**
     * @return the topology of every case.
     */
    public static Topology topology()
    {
        return new Topology.Builder()
            .port(0, 0x02_00_00_00_00_10L, 1500, IpAddress.parse("10.0.0.1"), IpAddress.parse("2001:db8::1"))
            .gatewayV4(0, 0x02_00_00_00_00_FEL)
            .gatewayV6(0, 0x02_00_00_00_00_FEL)
            .neighbour(IpAddress.parse("192.168.1.2"), 0, 0x02_00_00_00_01_02L)
            .neighbour(IpAddress.parse("192.168.1.3"), 0, 0x02_00_00_00_01_03L)
            .neighbour(IpAddress.parse("192.168.1.4"), 0, 0x02_00_00_00_01_04L)
            .neighbour(IpAddress.parse("2001:db8:1::2"), 0, 0x02_00_00_00_01_05L)
            .build();
    }

    /**
     * @return a snapshot of the cases' configuration, for a pipeline.
     */
    public static DataPlanePublisher publisher()
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        for (final String rule : RULES)
        {
            RuleParser.parse(rule).applyTo(table);
        }
        return new DataPlanePublisher(new DataPlaneBuilder(8, 16).build(table, topology(), new ConnectionTimeouts(),
            DataPlaneSettings.defaults()));
    }
}
