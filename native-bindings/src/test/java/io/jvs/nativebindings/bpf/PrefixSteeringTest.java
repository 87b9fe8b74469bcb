package io.jvs.nativebindings.bpf;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Steering by prefix: over random VIPs, real servers, box addresses and destination and source prefixes of random
 * lengths (the box's addresses sometimes inside a destination prefix), the XDP program and the tcx steal program,
 * run by the kernel (BPF_PROG_TEST_RUN over a filter's real LPM tries) and by the interpreter (over models of the
 * maps), decide every random frame as {@link JvsTrafficReference} does. Needs root, as CI has.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PrefixSteeringTest
{
    private static final int FRAMES = 1_500;

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 6);
    }

    /** One random configuration: the addresses of each map and the pool the frames draw theirs from. */
    private static final class Scenario
    {
        final List<byte[]> vips = new ArrayList<>();
        final List<byte[]> reals = new ArrayList<>();
        final List<byte[]> locals = new ArrayList<>();
        final List<JvsTrafficReference.Prefix> destinations = new ArrayList<>();
        final List<JvsTrafficReference.Prefix> sources = new ArrayList<>();
        final List<byte[]> pool = new ArrayList<>();

        Scenario(final Random random)
        {
            for (final int bytes : new int[] {4, 16})
            {
                for (int i = 0; i < 1 + random.nextInt(4); i++)
                {
                    destinations.add(randomPrefix(random, bytes));
                }
                for (int i = 0; i < 1 + random.nextInt(3); i++)
                {
                    sources.add(randomPrefix(random, bytes));
                }
                for (int i = 0; i < 2; i++)
                {
                    vips.add(randomAddress(random, bytes));
                    reals.add(randomAddress(random, bytes));
                    locals.add(randomAddress(random, bytes));
                }
                // A box address and a VIP inside a destination prefix: the hash maps decide those first.
                locals.add(inside(random, destinations.get(destinations.size() - 1)));
                vips.add(inside(random, destinations.get(destinations.size() - 1)));
            }
            pool.addAll(vips);
            pool.addAll(reals);
            pool.addAll(locals);
            for (int i = 0; i < 40; i++)
            {
                final List<JvsTrafficReference.Prefix> side = random.nextBoolean() ? destinations : sources;
                pool.add(inside(random, side.get(random.nextInt(side.size()))));
                pool.add(randomAddress(random, random.nextBoolean() ? 4 : 16));
            }
        }

        JvsTrafficReference reference()
        {
            return new JvsTrafficReference(keys(vips, 4), keys(vips, 16), keys(reals, 4), keys(reals, 16),
                keys(locals, 4), keys(locals, 16), destinations, sources);
        }

        void fill(final XdpVipFilter filter)
        {
            vips.forEach(address -> filter.addVip(inet(address)));
            reals.forEach(address -> filter.addRealServer(inet(address)));
            locals.forEach(address -> filter.addLocalAddress(inet(address)));
            destinations.forEach(prefix -> filter.addDestinationPrefix(inet(prefix.network()), prefix.length()));
            sources.forEach(prefix -> filter.addSourcePrefix(inet(prefix.network()), prefix.length()));
        }

        /** Models of the maps, by the fds of {@link BpfXdpProgramsTest#FAKE_FDS}. */
        Map<Integer, BpfInterpreter.MapModel> models()
        {
            return Map.ofEntries(Map.entry(11, BpfInterpreter.MapModel.xskMap().socket(0)),
                Map.entry(12, hash(vips, 4)), Map.entry(13, hash(vips, 16)), Map.entry(14, hash(reals, 4)),
                Map.entry(15, hash(reals, 16)), Map.entry(16, hash(locals, 4)), Map.entry(17, hash(locals, 16)),
                Map.entry(18, BpfInterpreter.MapModel.array(8, 1)), Map.entry(19, trie(destinations, 4)),
                Map.entry(20, trie(destinations, 16)), Map.entry(21, trie(sources, 4)),
                Map.entry(22, trie(sources, 16)));
        }

        /** A frame between two addresses of the pool of one family: UDP, ICMP echo or not, ND; sometimes tagged. */
        byte[] frame(final Random random)
        {
            final boolean v6 = random.nextBoolean();
            final String source = text(pick(random, v6));
            final String destination = text(pick(random, v6));
            final TestFrame builder = new TestFrame();
            if (random.nextInt(4) == 0)
            {
                builder.tag(random.nextBoolean() ? TestFrame.TPID_8021Q : TestFrame.TPID_8021AD);
            }
            final int kind = random.nextInt(4);
            if (v6)
            {
                return kind < 2 ? builder.ipv6Udp(source, destination, random.nextInt(30)) :
                    builder.icmpv6(source, destination, new int[] {128, 129, 135}[random.nextInt(3)]);
            }
            return kind < 2 ? builder.ipv4(source, destination, random.nextInt(30)) :
                builder.icmpv4(source, destination, random.nextBoolean() ? 8 : 0, 0, 0);
        }

        private byte[] pick(final Random random, final boolean v6)
        {
            while (true)
            {
                final byte[] address = pool.get(random.nextInt(pool.size()));
                if ((address.length == 16) == v6)
                {
                    return address;
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldSteerByPrefixInTheKernelAndTheInterpreterAsTheReferenceDoes(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final Scenario scenario = new Scenario(random);
        final JvsTrafficReference reference = scenario.reference();
        final Syscalls syscalls = Syscalls.create();
        final BpfInterpreter interpreter = new BpfInterpreter(
            XdpPrograms.redirectJvsTraffic(XdpAction.PASS).link(BpfXdpProgramsTest.FAKE_FDS), scenario.models());
        try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 64);
             BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1))
        {
            scenario.fill(filter);
            try (BpfProgram xdp = filter.loadProgram(syscalls, "jvs_nets_tx", xsks, XdpAction.TX);
                 BpfProgram steal = TcPrograms.loadStealJvsTraffic(syscalls, filter))
            {
                int jvs = 0;
                int kernel = 0;
                for (int i = 0; i < FRAMES; i++)
                {
                    final byte[] frame = scenario.frame(random);
                    final boolean expected = reference.isJvsTraffic(frame);
                    final String what = java.util.Arrays.toString(frame);
                    assertThat(xdp.testRun(frame)).as("XDP in the kernel: %s", what)
                        .isEqualTo(expected ? XdpAction.TX : XdpAction.PASS);
                    assertThat(steal.testRun(frame)).as("tcx in the kernel: %s", what)
                        .isEqualTo(expected ? TcPrograms.DROP : TcPrograms.NEXT);
                    assertThat(interpreter.run(frame, 0).action()).as("interpreter: %s", what)
                        .isEqualTo(expected ? XdpAction.REDIRECT : XdpAction.PASS);
                    jvs += expected ? 1 : 0;
                    kernel += expected ? 0 : 1;
                }
                assertThat(jvs).as("frames for jvs").isGreaterThan(FRAMES / 10);
                assertThat(kernel).as("frames for the kernel").isGreaterThan(FRAMES / 10);
            }
        }
    }

    /** A network of random bits and a random length (the bits past it cleared, as the tries store it). */
    static JvsTrafficReference.Prefix randomPrefix(final Random random, final int bytes)
    {
        final int length = 1 + random.nextInt(bytes * 8);
        final byte[] network = randomAddress(random, bytes);
        for (int bit = length; bit < bytes * 8; bit++)
        {
            network[bit / 8] &= (byte)~(0x80 >>> (bit % 8));
        }
        return new JvsTrafficReference.Prefix(network, length);
    }

    /** An address of the prefix: its bits, random host bits. */
    static byte[] inside(final Random random, final JvsTrafficReference.Prefix prefix)
    {
        final byte[] address = randomAddress(random, prefix.network().length);
        for (int bit = 0; bit < prefix.length(); bit++)
        {
            final int mask = 0x80 >>> (bit % 8);
            address[bit / 8] = (byte)(address[bit / 8] & ~mask | prefix.network()[bit / 8] & mask);
        }
        return address;
    }

    /** Random bytes; an IPv6 address kept out of ::/8, where IPv4-mapped addresses would read as IPv4 ones. */
    static byte[] randomAddress(final Random random, final int bytes)
    {
        final byte[] address = new byte[bytes];
        random.nextBytes(address);
        if (bytes == 16)
        {
            address[0] |= 0x20;
        }
        return address;
    }

    private static Set<ByteBuffer> keys(final List<byte[]> addresses, final int bytes)
    {
        final Set<ByteBuffer> keys = new HashSet<>();
        addresses.stream().filter(address -> address.length == bytes).forEach(address -> keys.add(ByteBuffer.wrap(
            address)));
        return keys;
    }

    private static BpfInterpreter.MapModel hash(final List<byte[]> addresses, final int bytes)
    {
        final BpfInterpreter.MapModel map = BpfInterpreter.MapModel.hash(bytes, 4);
        addresses.stream().filter(address -> address.length == bytes).forEach(address -> map.put(address,
            new byte[4]));
        return map;
    }

    private static BpfInterpreter.MapModel trie(final List<JvsTrafficReference.Prefix> prefixes, final int bytes)
    {
        final BpfInterpreter.MapModel map = BpfInterpreter.MapModel.lpmTrie(bytes, 4);
        prefixes.stream().filter(prefix -> prefix.network().length == bytes)
            .forEach(prefix -> map.put(BpfXdpProgramsTest.trieKey(prefix.network(), prefix.length()), new byte[4]));
        return map;
    }

    private static InetAddress inet(final byte[] address)
    {
        try
        {
            return InetAddress.getByAddress(address);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(ex);
        }
    }

    private static String text(final byte[] address)
    {
        return inet(address).getHostAddress();
    }
}
