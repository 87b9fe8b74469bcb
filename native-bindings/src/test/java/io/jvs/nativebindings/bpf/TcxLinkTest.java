package io.jvs.nativebindings.bpf;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestCapabilities;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The drop-all program on a veth's tcx ingress, in a test namespace: a UDP socket behind the device stops
 * receiving while the link is open and receives again once it is closed, and the hook is empty again, also
 * when the process holding the link ({@link TcxAttachChild}) is killed. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcxLinkTest
{
    private static final String DEVICE = "fa";
    private static final String GENERATOR_ADDRESS = "10.201.0.1";
    private static final String ADDRESS = "10.201.0.2";
    private static final int PORT = 40_123;
    /** Long enough for a datagram between veths in one host to arrive, short enough to keep the test fast. */
    private static final int QUIET_MS = 300;

    @Test
    void shouldDropReceivedFramesWhileAttachedAndPassThemAfterClose() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("tcxd"))
        {
            final String generator = network.namespace("g");
            final String namespace = withAddressedVeth(network, generator);
            TestNetwork.callIn(namespace, () ->
            {
                final Syscalls syscalls = Syscalls.create();
                try (DatagramSocket receiver = new DatagramSocket(new InetSocketAddress(ADDRESS, PORT));
                     BpfProgram program = TcPrograms.loadDropAll(syscalls))
                {
                    receiver.setSoTimeout(QUIET_MS);
                    send(generator, "before");
                    assertThat(receive(receiver)).isEqualTo("before");

                    final TcxLink link = TcxLink.attach(syscalls, program, DEVICE, TcxDirection.INGRESS);
                    assertThat(TcxLink.attachedProgramIds(syscalls, DEVICE, TcxDirection.INGRESS))
                        .containsExactly(program.id());
                    assertThat(TcxLink.attachedProgramIds(syscalls, DEVICE, TcxDirection.EGRESS)).isEmpty();
                    send(generator, "stolen");
                    assertThat(receive(receiver)).as("a datagram while the link drops everything").isNull();

                    link.close();
                    assertThat(link.isOpen()).isFalse();
                    assertThat(TcxLink.attachedProgramIds(syscalls, DEVICE, TcxDirection.INGRESS)).isEmpty();
                    send(generator, "after");
                    assertThat(receive(receiver)).isEqualTo("after");
                }
                return null;
            });
        }
    }

    @Test
    void shouldDetachWhenTheHoldingProcessIsKilled() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("tcxk"))
        {
            final String namespace = network.namespace("f");
            network.veth(network.namespace("g"), "g0", namespace, DEVICE);
            // The same JDK and class path as this test JVM (surefire puts the full test class path there).
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final Process child = new ProcessBuilder("ip", "netns", "exec", namespace, java,
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                TcxAttachChild.class.getName(), DEVICE)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
            try
            {
                final String line = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
                assertThat(line).as("child's first line").startsWith("attached ");
                final int programId = Integer.parseInt(line.substring("attached ".length()));
                assertThat(attached(namespace)).containsExactly(programId);

                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);

                // The kernel releases the link's fd as the process exits; allow it a moment to finish.
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (attached(namespace).length > 0 && System.nanoTime() < deadline)
                {
                    Thread.sleep(20);
                }
                assertThat(attached(namespace)).isEmpty();
            }
            finally
            {
                child.destroyForcibly();
            }
        }
    }

    private static int[] attached(final String namespace)
    {
        return TestNetwork.callIn(namespace,
            () -> TcxLink.attachedProgramIds(Syscalls.create(), DEVICE, TcxDirection.INGRESS));
    }

    @Test
    void shouldNameTheMissingDevice()
    {
        final Syscalls syscalls = Syscalls.create();
        try (BpfProgram program = TcPrograms.loadDropAll(syscalls))
        {
            assertThatThrownBy(() -> TcxLink.attach(syscalls, program, "jvsnosuchdev0", TcxDirection.INGRESS))
                .isInstanceOf(NativeCallException.class).hasMessageContaining("ENODEV")
                .hasMessageContaining("jvsnosuchdev0");
        }
    }

    /**
     * The kernel checks the capabilities when the program is loaded (SCHED_CLS needs CAP_BPF and CAP_NET_ADMIN);
     * whoever holds its fd may then attach it, as the port's owner does.
     */
    @Test
    void shouldNameTheCapabilitiesWhenLoadingIsNotPermitted()
    {
        // Root's CAP_SYS_ADMIN stands in for both: drop it too.
        TestCapabilities.callWithout(new int[] {TestCapabilities.CAP_BPF, TestCapabilities.CAP_NET_ADMIN,
            TestCapabilities.CAP_SYS_ADMIN}, () ->
        {
            assertThatThrownBy(() -> TcPrograms.loadDropAll(Syscalls.create()))
                .isInstanceOf(NativeCallException.class).hasMessageContaining("EPERM")
                .hasMessageContaining("CAP_BPF").hasMessageContaining("CAP_NET_ADMIN")
                .hasMessageContaining(TcPrograms.DROP_ALL_NAME);
            return null;
        });
    }

    /**
     * Namespace "f" with {@value DEVICE} at {@value ADDRESS}, its peer g0 in {@code generator}. The generator
     * knows the device's MAC for good: while frames are stolen, ARP replies are stolen too.
     *
     * @return namespace "f".
     */
    private static String withAddressedVeth(final TestNetwork network, final String generator)
    {
        final String namespace = network.namespace("f");
        network.veth(generator, "g0", namespace, DEVICE);
        network.inNamespace(generator, "ip", "addr", "add", GENERATOR_ADDRESS + "/24", "dev", "g0");
        network.inNamespace(namespace, "ip", "addr", "add", ADDRESS + "/24", "dev", DEVICE);
        final String mac = network.inNamespace(namespace, "cat", "/sys/class/net/" + DEVICE + "/address").strip();
        network.inNamespace(generator, "ip", "neigh", "replace", ADDRESS, "lladdr", mac, "dev", "g0", "nud",
            "permanent");
        return namespace;
    }

    private static void send(final String generator, final String text) throws Exception
    {
        TestNetwork.callIn(generator, () ->
        {
            try (DatagramSocket sender = new DatagramSocket(new InetSocketAddress(GENERATOR_ADDRESS, 0)))
            {
                final byte[] payload = text.getBytes(StandardCharsets.US_ASCII);
                sender.send(new DatagramPacket(payload, payload.length, InetAddress.getByName(ADDRESS), PORT));
            }
            return null;
        });
    }

    /**
     * @return the next datagram's text, or null when none arrives within the socket's timeout.
     */
    private static String receive(final DatagramSocket receiver) throws Exception
    {
        final DatagramPacket packet = new DatagramPacket(new byte[64], 64);
        try
        {
            receiver.receive(packet);
            return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.US_ASCII);
        }
        catch (final SocketTimeoutException ex)
        {
            return null;
        }
    }
}
