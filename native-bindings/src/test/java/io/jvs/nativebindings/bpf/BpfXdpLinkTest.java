package io.jvs.nativebindings.bpf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * XDP links on a veth inside a test namespace, held by a child JVM ({@link XdpAttachChild}) that runs in
 * that namespace: attached in each mode as {@code ip link} shows it, detached when the link closes and
 * when the process is killed, refused while another link holds the device. Needs root, as CI has.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BpfXdpLinkTest
{
    /**
     * {@code ip -d link} names the mode after the MTU ("mtu 1500 xdpgeneric qdisc ...") and the program on a
     * line of its own ("prog/xdp id 42 name jvs_child ...").
     */
    private static final Pattern ATTACHED = Pattern.compile("mtu \\d+ (xdp\\w*) .*prog/xdp id (\\d+)",
        Pattern.DOTALL);
    private static final String DEVICE = "fa";

    @ParameterizedTest
    @EnumSource(XdpMode.class)
    void shouldAttachInEachModeAndDetachWhenTheLinkCloses(final XdpMode mode) throws Exception
    {
        try (TestNetwork network = TestNetwork.create("xdpl");
             Child child = new Child(withVeth(network)))
        {
            assertThat(attached(network)).isEmpty();

            assertThat(child.command("attach " + DEVICE + " " + mode)).isEqualTo("attached");
            assertThat(attached(network)).containsExactly(mode.ipLinkName(), child.programId);

            assertThat(child.command("detach")).isEqualTo("detached");
            assertThat(attached(network)).isEmpty();
        }
    }

    @Test
    void shouldDetachWhenTheHoldingProcessIsKilled() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("xdpk");
             Child child = new Child(withVeth(network)))
        {
            assertThat(child.command("attach " + DEVICE + " DRV")).isEqualTo("attached");
            assertThat(attached(network)).containsExactly("xdp", child.programId);

            child.process.destroyForcibly();
            assertThat(child.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.process.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);

            // The kernel releases the link's fd as the process exits; allow it a moment to finish.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!attached(network).isEmpty() && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
            assertThat(attached(network)).isEmpty();
        }
    }

    @Test
    void shouldRefuseASecondLinkOnTheSameDeviceClearly() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("xdpb");
             Child first = new Child(withVeth(network));
             Child second = new Child(first.namespace))
        {
            assertThat(first.command("attach " + DEVICE + " SKB")).isEqualTo("attached");

            assertThat(second.command("attach " + DEVICE + " SKB"))
                .startsWith("error bpf(BPF_LINK_CREATE) failed: EBUSY")
                .contains("another XDP program is already attached to " + DEVICE);
            assertThat(first.command("attach " + DEVICE + " SKB")).startsWith("error").contains("EBUSY");
            assertThat(second.command("attach " + DEVICE + " DRV")).startsWith("error").contains("EEXIST")
                .contains("in the other mode");
            assertThat(attached(network)).containsExactly("xdpgeneric", first.programId);

            assertThat(first.command("detach")).isEqualTo("detached");
            assertThat(second.command("attach " + DEVICE + " SKB")).isEqualTo("attached");
            assertThat(attached(network)).containsExactly("xdpgeneric", second.programId);
        }
    }

    @Test
    void shouldExplainWhyNativeModeIsRefusedOnAVethWhosePeerHasAJumboMtu() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("xdpm");
             Child child = new Child(withVeth(network)))
        {
            network.inNamespace(network.namespaces().get(0), "ip", "link", "set", "g0", "mtu", "9000");

            assertThat(child.command("attach " + DEVICE + " DRV")).startsWith("error").contains("ERANGE")
                .contains("at most 3506");
            assertThat(attached(network)).isEmpty();
            assertThat(child.command("attach " + DEVICE + " SKB")).isEqualTo("attached");
        }
    }

    @Test
    void shouldNameTheMissingDevice()
    {
        final Syscalls syscalls = Syscalls.create();
        try (BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1);
             BpfProgram program = BpfProgram.loadXdp(syscalls, "jvs_all",
                 XdpPrograms.redirectAll(XdpAction.PASS).link(Map.of(XdpPrograms.XSKS, xsks.fd()))))
        {
            assertThatThrownBy(() -> XdpLink.attach(syscalls, program, "jvsnosuchdev0", XdpMode.SKB))
                .isInstanceOf(NativeCallException.class).hasMessageContaining("ENODEV")
                .hasMessageContaining("jvsnosuchdev0");
        }
    }

    private String namespace;

    /** A namespace "f" holding the veth end {@value DEVICE}, its peer in namespace "g". */
    private String withVeth(final TestNetwork network)
    {
        final String generator = network.namespace("g");
        namespace = network.namespace("f");
        network.veth(generator, "g0", namespace, DEVICE);
        return namespace;
    }

    /**
     * @return empty, or the mode word and program id {@code ip -d link} shows for the device.
     */
    private List<String> attached(final TestNetwork network)
    {
        final String output = network.inNamespace(namespace, "ip", "-d", "link", "show", "dev", DEVICE);
        final Matcher matcher = ATTACHED.matcher(output);
        return matcher.find() ? List.of(matcher.group(1), matcher.group(2)) : List.of();
    }

    /** A JVM running {@link XdpAttachChild} inside a namespace. */
    private static final class Child implements AutoCloseable
    {
        private final String namespace;
        private final Process process;
        private final BufferedReader replies;
        private final PrintWriter commands;
        private final Path errors;
        private final String programId;

        Child(final String namespace) throws IOException
        {
            this.namespace = namespace;
            errors = Files.createTempFile("xdp-child", ".err");
            // The same JDK and class path as this test JVM (surefire puts the full test class path there).
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder("ip", "netns", "exec", namespace, java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), XdpAttachChild.class.getName())
                .redirectError(errors.toFile())
                .start();
            replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            final String ready;
            try
            {
                ready = reply();
                assertThat(ready).as("child's first line").startsWith("ready ");
            }
            catch (final IOException | RuntimeException | AssertionError ex)
            {
                process.destroyForcibly();
                throw ex;
            }
            programId = ready.substring("ready ".length());
        }

        String command(final String command) throws IOException
        {
            commands.println(command);
            return reply();
        }

        private String reply() throws IOException
        {
            final String line = replies.readLine();
            if (line == null)
            {
                throw new IllegalStateException("the child ended; its stderr: " + Files.readString(errors));
            }
            return line;
        }

        /** Closes the child's input, which makes it close its links and exit. */
        @Override
        public void close() throws IOException
        {
            commands.close();
            try
            {
                if (!process.waitFor(30, TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            Files.deleteIfExists(errors);
        }
    }
}
