package io.jvs.forwarder.port.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.TcPrograms;
import io.jvs.nativebindings.bpf.TcxDirection;
import io.jvs.nativebindings.bpf.TcxLink;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import io.jvs.nativebindings.testing.TestCapabilities;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stealing frames: a UDP datagram from gen to fwd's address on fA reaches the receive port either way, and a UDP
 * socket listening in fwd only when the port does not steal. Closing the port removes its tcx link; without the
 * capability to load the program the port does not open. Stealing only jvs's traffic takes the datagrams and SYNs
 * to a VIP (the kernel, holding the VIP on lo, no longer resets the connection) and leaves ARP, ping to the VIP
 * and the box's own traffic to the kernel. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfPacketStealTest
{
    private static final String GEN_ADDRESS = "10.202.0.1";
    private static final String FWD_ADDRESS = "10.202.0.2";
    private static final String VIP = "10.202.9.9";
    private static final int PORT = 40_202;
    /** Long enough for a datagram between veths of one host, short enough to keep the test fast. */
    private static final int QUIET_MS = 300;
    private static final long PORT_DEADLINE_NS = TimeUnit.SECONDS.toNanos(2);

    @ParameterizedTest(name = "stealing {0}")
    @ValueSource(booleans = {false, true})
    void shouldLeaveTheOriginalToTheKernelOnlyWhenNotStealing(final boolean steal) throws Exception
    {
        final AfPacketSettings settings = AfPacketForwardingTest.SMALL.withStealing(steal);
        try (ForwardingNetwork net = new ForwardingNetwork("afpsteal");
            DatagramSocket listener = TestNetwork.callIn(net.fwd, () -> addressed(net));
            DatagramSocket sender = TestNetwork.callIn(net.gen,
                () -> new DatagramSocket(new InetSocketAddress(GEN_ADDRESS, 0))))
        {
            listener.setSoTimeout(QUIET_MS);
            final AfPacketPort port = TestNetwork.callIn(net.fwd,
                () -> AfPacketPort.open(Syscalls.create(), 0, "fA", settings, AfPacketPort.Direction.RECEIVE));
            try
            {
                assertThat(port.describe().contains("steals frames (tcx ingress drop)")).isEqualTo(steal);
                assertThat(attachedToFa(net)).hasSize(steal ? 1 : 0);
                final byte[] payload = ("datagram stolen=" + steal).getBytes(StandardCharsets.US_ASCII);
                sender.send(new DatagramPacket(payload, payload.length, InetAddress.getByName(FWD_ADDRESS), PORT));

                assertThat(portReceives(port, payload)).as("the AF_PACKET port has its copy").isTrue();
                assertThat(listenerReceives(listener, payload)).as("the kernel's stack had the original")
                    .isEqualTo(!steal);
            }
            finally
            {
                port.close();
            }
            assertThat(attachedToFa(net)).as("no tcx program left on fA after close").isEmpty();
        }
    }

    @Test
    void shouldNameTheCapabilityAndLeaveNothingAttachedWhenStealingIsNotPermitted()
    {
        try (ForwardingNetwork net = new ForwardingNetwork("afpstealp"))
        {
            TestNetwork.callIn(net.fwd, () -> TestCapabilities.callWithout(
                new int[] {TestCapabilities.CAP_BPF, TestCapabilities.CAP_SYS_ADMIN}, () ->
                {
                    assertThatThrownBy(() -> AfPacketPort.open(Syscalls.create(), 0, "fA",
                        AfPacketForwardingTest.SMALL.withStealing(true), AfPacketPort.Direction.RECEIVE))
                        .isInstanceOf(NativeCallException.class)
                        .hasMessageContaining("EPERM").hasMessageContaining("CAP_BPF")
                        .hasMessageContaining(TcPrograms.DROP_ALL_NAME);
                    return null;
                }));
            assertThat(attachedToFa(net)).isEmpty();
        }
    }

    @Test
    void shouldStealOnlyWhatJvsForwardsAndLeaveArpPingAndTheBoxToTheKernel() throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        try (ForwardingNetwork net = new ForwardingNetwork("afpsel");
             XdpVipFilter maps = XdpVipFilter.create(syscalls, 16))
        {
            // No permanent neighbour entry this time: gen must resolve fA's address by ARP, through the steal.
            net.network.inNamespace(net.gen, "ip", "addr", "add", GEN_ADDRESS + "/24", "dev", "g0");
            net.network.inNamespace(net.gen, "ip", "route", "add", VIP + "/32", "via", FWD_ADDRESS);
            net.network.inNamespace(net.fwd, "ip", "addr", "add", FWD_ADDRESS + "/24", "dev", "fA");
            net.network.inNamespace(net.fwd, "ip", "addr", "add", VIP + "/32", "dev", "lo");
            maps.addVip(InetAddress.getByName(VIP));
            maps.addLocalAddress(InetAddress.getByName(FWD_ADDRESS));
            final AfPacketSettings settings = AfPacketForwardingTest.SMALL.withSteal(AfPacketSteal.JVS_TRAFFIC);
            try (DatagramSocket box = TestNetwork.callIn(net.fwd,
                     () -> new DatagramSocket(new InetSocketAddress(FWD_ADDRESS, PORT)));
                 DatagramSocket vip = TestNetwork.callIn(net.fwd,
                     () -> new DatagramSocket(new InetSocketAddress(VIP, PORT)));
                 DatagramSocket sender = TestNetwork.callIn(net.gen,
                     () -> new DatagramSocket(new InetSocketAddress(GEN_ADDRESS, 0))))
            {
                box.setSoTimeout(QUIET_MS * 3);
                vip.setSoTimeout(QUIET_MS);
                final AfPacketPort port = TestNetwork.callIn(net.fwd, () -> AfPacketPort.open(Syscalls.create(), 0,
                    "fA", settings, AfPacketPort.Direction.RECEIVE, AfPacketPrograms.NONE.withJvsTraffic(maps)));
                try
                {
                    assertThat(port.describe()).contains("steals jvs's traffic");
                    assertThat(attachedToFa(net)).hasSize(1);
                    final byte[] toBox = "to the box".getBytes(StandardCharsets.US_ASCII);
                    sender.send(new DatagramPacket(toBox, toBox.length, InetAddress.getByName(FWD_ADDRESS), PORT));
                    assertThat(listenerReceives(box, toBox)).as("ARP resolved, the box's datagram delivered").isTrue();
                    assertThat(portReceives(port, toBox)).as("the port's copy").isTrue();

                    final byte[] toVip = "to the VIP".getBytes(StandardCharsets.US_ASCII);
                    sender.send(new DatagramPacket(toVip, toVip.length, InetAddress.getByName(VIP), PORT));
                    assertThat(portReceives(port, toVip)).isTrue();
                    assertThat(listenerReceives(vip, toVip)).as("the kernel never saw it").isFalse();

                    assertThat(pingVip(net)).as("the kernel answers ping to the VIP").isTrue();
                    assertThat(connectToVip(net)).as("no reset from the kernel: the SYN was taken")
                        .isEqualTo("timed out");
                }
                finally
                {
                    port.close();
                }
                assertThat(attachedToFa(net)).isEmpty();
                assertThat(connectToVip(net)).as("without the steal the kernel resets the SYN").isEqualTo("refused");
            }
        }
    }

    @Test
    void shouldRefuseToStealJvsTrafficWithoutTheMaps()
    {
        try (ForwardingNetwork net = new ForwardingNetwork("afpselm"))
        {
            assertThatThrownBy(() -> TestNetwork.callIn(net.fwd, () -> AfPacketPort.open(Syscalls.create(), 0, "fA",
                AfPacketForwardingTest.SMALL.withSteal(AfPacketSteal.JVS_TRAFFIC), AfPacketPort.Direction.RECEIVE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JVS_TRAFFIC needs the");
            assertThat(attachedToFa(net)).isEmpty();
        }
    }

    /** ICMP echo from gen (InetAddress.isReachable sends one as root) to the VIP. */
    private static boolean pingVip(final ForwardingNetwork net)
    {
        return TestNetwork.callIn(net.gen, () -> InetAddress.getByName(VIP).isReachable(2_000));
    }

    /**
     * A TCP connect from gen to the VIP, where nothing listens.
     *
     * @return "refused" (the kernel answered with a reset), "timed out" (nobody answered) or "connected".
     */
    private static String connectToVip(final ForwardingNetwork net)
    {
        return TestNetwork.callIn(net.gen, () ->
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress(VIP, PORT), QUIET_MS * 2);
                return "connected";
            }
            catch (final ConnectException ex)
            {
                return "refused";
            }
            catch (final SocketTimeoutException ex)
            {
                return "timed out";
            }
        });
    }

    /**
     * fA gets {@value FWD_ADDRESS} and gen knows its MAC for good: a stealing port takes ARP requests too.
     *
     * @return a UDP socket bound to that address in fwd.
     */
    private static DatagramSocket addressed(final ForwardingNetwork net) throws Exception
    {
        net.network.inNamespace(net.gen, "ip", "addr", "add", GEN_ADDRESS + "/24", "dev", "g0");
        net.network.inNamespace(net.fwd, "ip", "addr", "add", FWD_ADDRESS + "/24", "dev", "fA");
        final String mac = net.network.inNamespace(net.fwd, "cat", "/sys/class/net/fA/address").strip();
        net.network.inNamespace(net.gen, "ip", "neigh", "replace", FWD_ADDRESS, "lladdr", mac, "dev", "g0", "nud",
            "permanent");
        return new DatagramSocket(new InetSocketAddress(FWD_ADDRESS, PORT));
    }

    private static int[] attachedToFa(final ForwardingNetwork net)
    {
        return TestNetwork.callIn(net.fwd,
            () -> TcxLink.attachedProgramIds(Syscalls.create(), "fA", TcxDirection.INGRESS));
    }

    private static boolean portReceives(final AfPacketPort port, final byte[] payload)
    {
        final FrameBurst burst = new FrameBurst();
        final long deadline = System.nanoTime() + PORT_DEADLINE_NS;
        while (System.nanoTime() < deadline)
        {
            burst.clear();
            final int count = port.receive(burst, System.nanoTime());
            for (int i = 0; i < count; i++)
            {
                final byte[] frame = MemorySegment.ofAddress(burst.address(i)).reinterpret(burst.length(i))
                    .toArray(ValueLayout.JAVA_BYTE);
                if (endsWith(frame, payload))
                {
                    port.release(burst);
                    return true;
                }
            }
            port.release(burst);
            port.awaitFrames(10);
        }
        return false;
    }

    private static boolean endsWith(final byte[] frame, final byte[] payload)
    {
        return frame.length >= payload.length &&
            Arrays.equals(frame, frame.length - payload.length, frame.length, payload, 0, payload.length);
    }

    private static boolean listenerReceives(final DatagramSocket listener, final byte[] payload) throws Exception
    {
        final DatagramPacket packet = new DatagramPacket(new byte[256], 256);
        try
        {
            listener.receive(packet);
            return Arrays.equals(packet.getData(), 0, packet.getLength(), payload, 0, payload.length);
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
    }
}
