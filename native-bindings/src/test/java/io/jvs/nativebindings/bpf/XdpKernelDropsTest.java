package io.jvs.nativebindings.bpf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link XdpKernelDrops} and {@link KernelBtf}. On veths in test namespaces: a receiving veth's XDP program aborts
 * frames, then redirects them to a veth whose peer runs no NAPI (the kernel refuses the redirect), then to one whose
 * peer's MTU is smaller than the frames (the bulk transmit drops them while short frames pass); each way is counted
 * exactly, under its own name, and only while the device is watched. Root only; the namespaces are removed even
 * when the test fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class XdpKernelDropsTest
{
    private static final int EXPERIMENTAL_ETHER_TYPE = 0x88b5;
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void shouldFindTheIfindexOfANetDeviceInTheRunningKernelsBtf() throws IOException
    {
        final KernelBtf btf = KernelBtf.vmlinux();

        final OptionalInt ifindex = btf.memberByteOffset("net_device", "ifindex");
        assertThat(ifindex).isPresent();
        assertThat(ifindex.getAsInt()).isPositive().isLessThan(4096);
        assertThat(ifindex.getAsInt() % Integer.BYTES).isZero();
        assertThat(btf.memberByteOffset("net_device", "no_such_member")).isEmpty();
        assertThat(btf.memberByteOffset("no_such_struct", "ifindex")).isEmpty();
    }

    @Test
    void shouldFindMembersInsideAnonymousUnionsAndRefuseThoseOffAByte() throws IOException
    {
        // struct outer { int first; union { int inner; long other; }; int bits : 3 (at bit 100); };
        final HandMadeBtf made = new HandMadeBtf();
        final int integer = made.type(0, (1 << 24), 4, 32);
        final int union = made.type(0, (5 << 24) | 2, 8, made.string("inner"), integer, 0,
            made.string("other"), integer, 0);
        made.type(made.string("outer"), (4 << 24) | (1 << 31) | 3, 16, made.string("first"), integer, 0,
            0, union, 32, made.string("bits"), integer, (3 << 24) | 100);
        final KernelBtf btf = KernelBtf.parse(made.bytes());

        assertThat(btf.memberByteOffset("outer", "first")).hasValue(0);
        assertThat(btf.memberByteOffset("outer", "inner")).hasValue(4);
        assertThat(btf.memberByteOffset("outer", "other")).hasValue(4);
        assertThat(btf.memberByteOffset("outer", "bits")).as("a bit field at bit 100").isEmpty();
    }

    @Test
    void shouldCountAbortedRefusedAndUnsentFramesOfAWatchedDeviceOnly() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("xdpdrops"))
        {
            final String sender = network.namespace("a");
            final String box = network.namespace("b");
            final String beyond = network.namespace("c");
            // The sender's own IPv6 chatter (router solicitations, MLD reports) would meet the program too.
            network.inNamespace(sender, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1");
            network.inNamespace(sender, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1");
            network.veth(sender, "va", box, "vb");
            network.veth(box, "vc", beyond, "vd");
            network.inNamespace(beyond, "ethtool", "-K", "vd", "gro", "off");
            final Syscalls syscalls = Syscalls.create();
            final int receiving = TestNetwork.callIn(box, () -> syscalls.ifNameToIndex("vb"));
            final int egress = TestNetwork.callIn(box, () -> syscalls.ifNameToIndex("vc"));

            try (XdpKernelDrops drops = TestNetwork.callIn(box, () -> XdpKernelDrops.open(Syscalls.create(), 8));
                 XdpKernelDrops here = XdpKernelDrops.open(syscalls, 8);
                 BpfMap devices = BpfMap.create(syscalls, BpfMap.TYPE_DEVMAP, "test_egress", 4, 4, 1);
                 BpfProgram abort = BpfProgram.loadXdp(syscalls, "test_abort",
                     new BpfAssembler().mov64(BpfRegister.R0, XdpAction.ABORTED).exit().build());
                 BpfProgram redirect = BpfProgram.loadXdp(syscalls, "test_redirect", redirectProgram(devices));
                 RawPacketSocket in = RawPacketSocket.open(sender, "va", 0);
                 RawPacketSocket out = RawPacketSocket.openIncoming(beyond, "vd", EXPERIMENTAL_ETHER_TYPE))
            {
                TestNetwork.callIn(box, () ->
                {
                    devices.put(0, egress);
                    return null;
                });

                // Not watched yet: nothing is counted.
                try (XdpLink link = attach(box, abort))
                {
                    send(in, 3, 100);
                    Thread.sleep(200);
                }
                drops.watch(receiving);
                // The ifindex in another namespace (this thread's) is another device.
                here.watch(receiving);
                assertThat(drops.counts(receiving)).containsOnly(0L);

                try (XdpLink link = attach(box, abort))
                {
                    send(in, 5, 100);
                    awaitCount(drops, receiving, XdpKernelDrops.ABORTED, 5);
                }
                try (XdpLink link = attach(box, redirect))
                {
                    // vd runs no NAPI, so vc takes no redirected frame (it lacks NETDEV_XDP_ACT_NDO_XMIT).
                    send(in, 4, 100);
                    awaitCount(drops, receiving, XdpKernelDrops.DEVICE_REFUSED, 4);

                    // With GRO vd runs NAPI; frames longer than its MTU pass vc's own check and are dropped by
                    // veth_xdp_xmit in the bulk transmit, while short ones reach vd.
                    network.inNamespace(beyond, "ip", "link", "set", "vd", "mtu", "1000");
                    network.inNamespace(beyond, "ethtool", "-K", "vd", "gro", "on");
                    send(in, 3, 1200);
                    awaitCount(drops, receiving, XdpKernelDrops.TRANSMIT_DROPPED, 3);
                    send(in, 2, 100);
                    assertThat(out.receive(WAIT)).hasSize(100);
                    assertThat(out.receive(WAIT)).hasSize(100);
                }
                assertThat(drops.counts(receiving)).containsExactly(5, 0, 4, 3);
                assertThat(here.counts(receiving)).as("this namespace's device of that ifindex").containsOnly(0L);

                drops.unwatch(receiving);
                assertThat(drops.counts(receiving)).containsOnly(0L);
            }
        }
    }

    private static XdpLink attach(final String namespace, final BpfProgram program)
    {
        return TestNetwork.callIn(namespace, () -> XdpLink.attach(Syscalls.create(), program, "vb", XdpMode.DRV));
    }

    private static BpfBytecode redirectProgram(final BpfMap devices)
    {
        return new BpfAssembler()
            .loadMap(BpfRegister.R1, "egress")
            .mov64(BpfRegister.R2, 0)
            .mov64(BpfRegister.R3, 0)
            .call(BpfHelper.REDIRECT_MAP)
            .exit()
            .build()
            .link(Map.of("egress", devices.fd()));
    }

    private static void send(final RawPacketSocket socket, final int frames, final int length)
    {
        final byte[] frame = new byte[length];
        Arrays.fill(frame, 0, 6, (byte)0xff);
        frame[6] = 0x02;
        frame[11] = 0x01;
        frame[12] = (byte)(EXPERIMENTAL_ETHER_TYPE >>> 8);
        frame[13] = (byte)EXPERIMENTAL_ETHER_TYPE;
        for (int f = 0; f < frames; f++)
        {
            socket.send(frame);
        }
    }

    /** Waits until the count reaches {@code expected}, then checks that it stays there a moment. */
    private static void awaitCount(final XdpKernelDrops drops, final int ifindex, final int count, final long expected)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (drops.counts(ifindex)[count] < expected && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        Thread.sleep(100);
        assertThat(drops.counts(ifindex)[count]).as(XdpKernelDrops.label(count)).isEqualTo(expected);
    }

    /** BTF written by hand: type records as given, then the strings. */
    private static final class HandMadeBtf
    {
        private final ByteBuffer types = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        private final StringBuilder strings = new StringBuilder("\0");
        private int count;

        int string(final String text)
        {
            final int offset = strings.length();
            strings.append(text).append('\0');
            return offset;
        }

        /** @return the new type's id: name offset, info, size or type, then the kind's data, as ints. */
        int type(final int... words)
        {
            for (final int word : words)
            {
                types.putInt(word);
            }
            return ++count;
        }

        byte[] bytes()
        {
            final byte[] text = strings.toString().getBytes(StandardCharsets.US_ASCII);
            final ByteBuffer all = ByteBuffer.allocate(24 + types.position() + text.length)
                .order(ByteOrder.LITTLE_ENDIAN);
            all.putShort((short)0xeB9F).put((byte)1).put((byte)0).putInt(24)
                .putInt(0).putInt(types.position()).putInt(types.position()).putInt(text.length);
            all.put(types.array(), 0, types.position()).put(text);
            return all.array();
        }
    }
}
