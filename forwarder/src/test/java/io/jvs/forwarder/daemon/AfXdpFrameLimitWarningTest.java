package io.jvs.forwarder.daemon;

import io.jvs.forwarder.config.InterfaceConfig;
import io.jvs.forwarder.config.PortKind;
import io.jvs.forwarder.port.xdp.XdpBindMode;
import io.jvs.nativebindings.bpf.XdpMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon says when an AF_XDP interface's MTU makes frames a chunk cannot take (the kernel drops them, counted only
 * in kernel-rx-dropped): a 2048-byte chunk less the kernel's 256 bytes of headroom holds a frame of 1792 bytes, an
 * untagged frame of an MTU of 1778.
 */
class AfXdpFrameLimitWarningTest
{
    private static InterfaceConfig face(final PortKind kind)
    {
        return new InterfaceConfig("ls", kind, 1, XdpMode.DRV, XdpBindMode.AUTO, 3);
    }

    @Test
    void shouldWarnOfAnAfXdpMtuWhoseFramesAChunkCannotTake()
    {
        assertThat(KernelTopology.framesLongerThanChunks(face(PortKind.AFXDP), 1500)).isNull();
        assertThat(KernelTopology.framesLongerThanChunks(face(PortKind.AFXDP), 1778)).isNull();
        assertThat(KernelTopology.framesLongerThanChunks(face(PortKind.AFXDP), 1779))
            .isEqualTo("interface ls (afxdp): mtu 1779 makes frames of up to 1793 bytes, but an AF_XDP socket takes " +
                "at most 1792 (a 2048-byte chunk less the kernel's 256 of headroom): the kernel drops longer ones " +
                "(kernel-rx-dropped); use port afpacket on it, or an mtu of at most 1778");
        assertThat(KernelTopology.framesLongerThanChunks(face(PortKind.AFPACKET), 9000)).as("AF_PACKET: blocks")
            .isNull();
    }
}
