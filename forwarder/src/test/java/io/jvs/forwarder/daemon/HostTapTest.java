package io.jvs.forwarder.daemon;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.forwarder.synth.HeaderWriter;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The host path's TAP, in a namespace of the test's own: it comes up as a multi-queue TAP with one queue per
 * worker, the interface's MAC and reverse-path filtering off; a frame written on any worker's queue is a frame
 * the device received; closing it removes the device; a refused name leaves no descriptor open. Needs root.
 */
class HostTapTest
{
    static final long TAP_MAC = 0x02_00_00_00_0a_01L;
    private static final long SENDER_MAC = 0x02_00_00_00_0b_02L;

    @Test
    void shouldComeUpAsAMultiQueueTapWithTheMacAndOneQueuePerWorker()
    {
        try (TestNetwork network = TestNetwork.create("tapup"))
        {
            final String ns = network.namespace("h");
            // Defaults that the device must not take: strict reverse-path filtering, router advertisements.
            network.inNamespace(ns, "sysctl", "-q", "-w", "net.ipv4.conf.default.rp_filter=1");
            network.inNamespace(ns, "sysctl", "-q", "-w", "net.ipv6.conf.default.accept_ra=1");
            final HostTap tap = TestNetwork.callIn(ns, () -> HostTap.open(Syscalls.create(),
                new Syscalls[] {Syscalls.create(), Syscalls.create()}, "jvs0", mac(TAP_MAC)));
            try
            {
                assertThat(tap.name()).isEqualTo("jvs0");
                final String link = network.inNamespace(ns, "ip", "-d", "link", "show", "jvs0");
                assertThat(link).contains("<BROADCAST,MULTICAST,UP,LOWER_UP>")
                    .contains("link/ether 02:00:00:00:0a:01")
                    .contains("tun type tap pi off vnet_hdr off multi_queue numqueues 2")
                    .contains("persist off");
                assertThat(network.inNamespace(ns, "cat", "/proc/sys/net/ipv4/conf/jvs0/rp_filter").trim())
                    .isEqualTo("0");
                assertThat(network.inNamespace(ns, "cat", "/proc/sys/net/ipv6/conf/jvs0/accept_ra").trim())
                    .isEqualTo("0");
                // It has no address: it only feeds the stack.
                assertThat(network.inNamespace(ns, "ip", "-4", "addr", "show", "jvs0")).doesNotContain("inet ");
            }
            finally
            {
                tap.close();
            }
            // The device lives as long as its queues' descriptors.
            assertThat(TestNetwork.tryRun("ip", "netns", "exec", ns, "ip", "link", "show", "jvs0").status())
                .isNotZero();
        }
    }

    @Test
    void shouldDeliverAFrameWrittenOnEitherWorkersQueueToTheDevice()
    {
        try (TestNetwork network = TestNetwork.create("tapwr"); Arena arena = Arena.ofConfined())
        {
            final String ns = network.namespace("h");
            final HostTap tap = TestNetwork.callIn(ns, () -> HostTap.open(Syscalls.create(),
                new Syscalls[] {Syscalls.create(), Syscalls.create()}, "jvs0", mac(TAP_MAC)));
            try (tap; RawPacketSocket sink = RawPacketSocket.openIncoming(ns, "jvs0", AfPacket.ETH_P_IP))
            {
                final MemorySegment frame = arena.allocate(128);
                for (int worker = 0; worker < 2; worker++)
                {
                    final int length = udpFrame(frame.address(), TAP_MAC, 4000 + worker);
                    final byte[] sent = Frames.read(frame.address(), length);
                    assertThat(tap.write(worker, frame.address(), length)).as("write on queue %d", worker).isTrue();
                    final byte[] seen = sink.receive(Duration.ofSeconds(2));
                    assertThat(seen).as("frame from queue %d on the device", worker).isEqualTo(sent);
                }
                assertThat(tap.written()).isEqualTo(2);
                assertThat(tap.failed()).isZero();
            }
        }
    }

    @Test
    void shouldCloseEveryQueueWhenTheNameIsRefused() throws IOException
    {
        final long before = openDescriptors();
        assertThat(before).isZero();
        assertThatThrownBy(() -> HostTap.open(Syscalls.create(), new Syscalls[] {Syscalls.create(), Syscalls.create()},
            "a-name-far-too-long", mac(TAP_MAC))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("longer than 15 characters");
        assertThat(openDescriptors()).isEqualTo(before);
    }

    /** Descriptors of /dev/net/tun this process holds (other tests' descriptors come and go meanwhile). */
    private static long openDescriptors() throws IOException
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.filter(fd ->
            {
                try
                {
                    return Files.readSymbolicLink(fd).toString().equals("/dev/net/tun");
                }
                catch (final IOException ex)
                {
                    // Closed since the listing.
                    return false;
                }
            }).count();
        }
    }

    static byte[] mac(final long value)
    {
        final byte[] bytes = new byte[6];
        for (int i = 0; i < 6; i++)
        {
            bytes[i] = (byte)(value >>> (40 - 8 * i));
        }
        return bytes;
    }

    /** A UDP datagram from 192.0.2.1 to 192.0.2.2, addressed to {@code destinationMac}. */
    static int udpFrame(final long frame, final long destinationMac, final int sourcePort)
    {
        final int l3 = HeaderWriter.ethernet(frame, destinationMac, SENDER_MAC, -1, EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3;
        final long udp = ip + 20;
        final int segment = L4Headers.UDP_LENGTH + 18;
        for (int i = L4Headers.UDP_LENGTH; i < segment; i++)
        {
            Frames.putU8(udp + i, i);
        }
        HeaderWriter.udp(udp, sourcePort, 9, segment);
        HeaderWriter.ipv4(ip, 20 + segment, 7, 0x4000, HeaderWriter.TTL, Ipv4Header.PROTOCOL_UDP, 0xC000_0201,
            0xC000_0202);
        HeaderWriter.transportChecksum(ip, false, Ipv4Header.PROTOCOL_UDP, udp, segment);
        return HeaderWriter.pad(frame, l3 + 20 + segment);
    }
}
