package io.jvs.forwarder.port.xdp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.RawPacketSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM forwarding through an AF_XDP pair is killed with SIGKILL: the kernel detaches its XDP program (a
 * link fd dies with the process) and releases its queue, so a new pair opens on the same devices at once.
 * Needs root, as CI has.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AfXdpKillTest
{
    private static final int FRAMES = 20;

    @Test
    void shouldLeaveNoProgramAttachedAndTheQueueFreeWhenTheHoldingProcessIsKilled() throws Exception
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxk");
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 AfXdpForwardingTest.TEST_ETHER_TYPE);
             RawPacketSocket sink = RawPacketSocket.open(network.sink, ForwardingNetwork.SINK_DEVICE,
                 AfXdpForwardingTest.TEST_ETHER_TYPE))
        {
            final Path errors = Files.createTempFile("afxdp-child", ".err");
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final Process child = new ProcessBuilder("ip", "netns", "exec", network.forwarder, java,
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                AfXdpPairChild.class.getName(), ForwardingNetwork.RECEIVE_DEVICE, ForwardingNetwork.TRANSMIT_DEVICE,
                XdpMode.DRV.name()).redirectError(errors.toFile()).start();
            try
            {
                final String ready = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
                assertThat(ready).as("child's first line; its stderr: %s", Files.readString(errors))
                    .startsWith("ready afxdp afxdp:fA/0 -> afxdp:fB/0");
                assertThat(network.receiveDeviceDetails()).contains(" xdp ").contains("prog/xdp");

                // The child really forwards.
                for (int i = 0; i < FRAMES; i++)
                {
                    generator.send(AfXdpForwardingTest.testFrame(i));
                }
                assertThat(drain(sink, FRAMES)).as("forwarded by the child; its stderr: %s",
                    Files.readString(errors)).hasSize(FRAMES);

                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
            }
            finally
            {
                child.destroyForcibly();
                Files.deleteIfExists(errors);
            }

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (network.receiveDeviceDetails().contains("prog/xdp") && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(20);
            }
            assertThat(network.receiveDeviceDetails()).doesNotContain("prog/xdp").doesNotContain(" xdp ");

            try (AfXdpForwardingPair again = AfXdpForwardingTest.openIn(network.forwarder,
                AfXdpSettings.defaults(XdpMode.DRV)))
            {
                assertThat(again.describe()).contains("afxdp:fA/0");
            }
        }
    }

    private static List<String> drain(final RawPacketSocket sink, final int count) throws InterruptedException
    {
        final List<String> received = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.size() < count && System.nanoTime() - deadline < 0)
        {
            final byte[] frame = sink.poll();
            if (frame == null)
            {
                Thread.sleep(1);
            }
            else
            {
                received.add(AfXdpForwardingTest.hex(frame));
            }
        }
        return received;
    }
}
