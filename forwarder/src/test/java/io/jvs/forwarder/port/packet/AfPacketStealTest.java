package io.jvs.forwarder.port.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * capability to load the program the port does not open. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfPacketStealTest
{
    private static final String GEN_ADDRESS = "10.202.0.1";
    private static final String FWD_ADDRESS = "10.202.0.2";
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
                final byte[] frame = MemorySegment.ofAddress(burst.address[i]).reinterpret(burst.length[i])
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
