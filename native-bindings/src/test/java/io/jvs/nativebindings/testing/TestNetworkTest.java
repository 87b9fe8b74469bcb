package io.jvs.nativebindings.testing;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The test network builds what it says and leaves nothing behind. Needs root, as CI has. */
class TestNetworkTest
{
    @Test
    void shouldBuildNamespacesWithAVethPairAndRemoveThem()
    {
        final String generator;
        final String forwarder;
        try (TestNetwork network = TestNetwork.create("self"))
        {
            generator = network.namespace("g");
            forwarder = network.namespace("f");
            network.veth(generator, "g0", forwarder, "fa");
            network.inNamespace(generator, "ip", "addr", "add", "10.99.0.1/24", "dev", "g0");
            network.inNamespace(forwarder, "ip", "addr", "add", "10.99.0.2/24", "dev", "fa");

            assertThat(network.inNamespace(forwarder, "ip", "-o", "link", "show", "fa")).contains("state UP");
            assertThat(TestNetwork.run("ip", "netns", "list")).contains(generator).contains(forwarder);
        }
        final String after = TestNetwork.run("ip", "netns", "list");
        assertThat(after).doesNotContain(generator).doesNotContain(forwarder);
    }

    @Test
    void shouldRunCodeInsideANamespaceOnItsOwnThread()
    {
        final Syscalls syscalls = Syscalls.create("panama");
        try (TestNetwork network = TestNetwork.create("inside"))
        {
            final String a = network.namespace("a");
            final String b = network.namespace("b");
            network.veth(a, "va", b, "vb");

            final int inside = TestNetwork.callIn(a, () -> Syscalls.create("panama").ifNameToIndex("va"));
            assertThat(inside).isPositive();
            assertThat(syscalls.ifNameToIndex("va")).isNegative();
            assertThat(TestNetwork.callIn(b, () -> Thread.currentThread().getName())).isEqualTo("in-" + b);
        }
    }
}
