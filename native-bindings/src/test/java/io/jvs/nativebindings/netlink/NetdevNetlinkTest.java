package io.jvs.nativebindings.netlink;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link NetdevNetlink} against the running kernel, on a veth pair between two test namespaces: a veth takes
 * redirected frames (NETDEV_XDP_ACT_NDO_XMIT) only while its peer runs NAPI, here once GRO is on at the peer, and
 * says so again when it is off; an unknown interface is refused. Root only; the namespaces are removed even when
 * the test fails.
 */
class NetdevNetlinkTest
{
    @Test
    void shouldReportWhetherAVethTakesRedirectedFramesAsItsPeerRunsNapi()
    {
        try (TestNetwork network = TestNetwork.create("netdev"))
        {
            final String a = network.namespace("a");
            final String b = network.namespace("b");
            network.veth(a, "va", b, "vb");
            network.inNamespace(b, "ethtool", "-K", "vb", "gro", "off");
            final long without = features(a);
            assertThat(without & NetdevNetlink.XDP_ACT_REDIRECT).as("its own program may redirect").isNotZero();
            assertThat(without & NetdevNetlink.XDP_ACT_NDO_XMIT).as("the peer without NAPI").isZero();

            network.inNamespace(b, "ethtool", "-K", "vb", "gro", "on");
            assertThat(features(a) & NetdevNetlink.XDP_ACT_NDO_XMIT).as("GRO on the peer").isNotZero();
            network.inNamespace(b, "ethtool", "-K", "vb", "gro", "off");
            assertThat(features(a) & NetdevNetlink.XDP_ACT_NDO_XMIT).as("off again").isZero();

            TestNetwork.callIn(a, () ->
            {
                try (NetdevNetlink netdev = NetdevNetlink.open(Syscalls.create()))
                {
                    assertThatThrownBy(() -> netdev.xdpFeatures(9999)).isInstanceOf(NativeCallException.class)
                        .hasMessageContaining("ENODEV");
                }
                return null;
            });
        }
    }

    private static long features(final String namespace)
    {
        return TestNetwork.callIn(namespace, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            try (NetdevNetlink netdev = NetdevNetlink.open(syscalls))
            {
                return netdev.xdpFeatures(syscalls.ifNameToIndex("va"));
            }
        });
    }
}
