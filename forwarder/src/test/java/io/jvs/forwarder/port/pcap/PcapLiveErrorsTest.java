package io.jvs.forwarder.port.pcap;

import io.jvs.nativebindings.testing.TestNetwork;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A live port that cannot open says which interface and why. Needs root, as CI has: the interfaces live in a
 * namespace the test makes, and the permission case drops capabilities from a child JVM.
 */
class PcapLiveErrorsTest
{
    private TestNetwork network;
    private String namespace;

    @BeforeEach
    void buildNamespace()
    {
        network = TestNetwork.create("pcaperr");
        namespace = network.namespace("e");
    }

    @AfterEach
    void removeNamespace()
    {
        network.close();
    }

    @Test
    void shouldNameAMissingInterface()
    {
        assertThatThrownBy(() -> TestNetwork.callIn(namespace, () -> PcapLivePort.open(0, "nosuch0")))
            .isInstanceOf(PcapPortException.class)
            .hasMessageStartingWith("interface nosuch0: no such interface in this network namespace (libpcap: ");
    }

    @Test
    void shouldNameAnInterfaceThatIsDown()
    {
        // A new veth pair starts down (a dummy device would too, but its module may be missing).
        network.inNamespace(namespace, "ip", "link", "add", "down0", "type", "veth", "peer", "name", "down1");

        assertThatThrownBy(() -> TestNetwork.callIn(namespace, () -> PcapLivePort.open(0, "down0")))
            .isInstanceOf(PcapPortException.class)
            .hasMessageStartingWith("interface down0: the interface is down (ip link set down0 up)");
    }

    @Test
    void shouldNameAFilterLibpcapCannotCompile()
    {
        final PcapLiveSettings bad = PcapLiveSettings.DEFAULT.withFilter("udp port http-alt-nonsense");

        assertThatThrownBy(() -> TestNetwork.callIn(namespace, () -> PcapLivePort.open(0, "lo", bad)))
            .isInstanceOf(PcapPortException.class)
            .hasMessageContaining("filter \"udp port http-alt-nonsense\" for interface lo: libpcap cannot use it: ")
            .hasMessageContaining("unknown port 'http-alt-nonsense'");
    }

    @Test
    void shouldNameTheMissingCapabilityWithoutPrivilege()
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final String output = network.inNamespace(namespace, "setpriv", "--inh-caps=-net_raw,-net_admin",
            "--bounding-set=-net_raw,-net_admin", "--", java, "--enable-native-access=ALL-UNNAMED",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            LiveOpenProbe.class.getName(), "lo");

        assertThat(output).contains("refused: interface lo: permission denied: capturing needs CAP_NET_RAW");
    }
}
