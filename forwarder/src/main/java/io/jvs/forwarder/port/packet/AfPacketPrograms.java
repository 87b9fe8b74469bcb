package io.jvs.forwarder.port.packet;

import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpVipFilter;

/**
 * The BPF objects an AF_PACKET port uses but does not own, shared by the ports of a device and outliving them: the
 * program of a {@code PACKET_FANOUT_EBPF} group, and the address maps of the {@link AfPacketSteal#JVS_TRAFFIC}
 * steal program. The caller creates and closes them; a port keeps no reference after {@link AfPacketPort#open}
 * returns (the kernel holds the fanout program for the group, and the tcx link the steal program it loads).
 *
 * @param fanout     a socket filter that returns the socket index of each frame
 *                   ({@link io.jvs.nativebindings.bpf.FanoutPrograms#load}), or null; required, and only
 *                   allowed, with fanout mode {@code PACKET_FANOUT_EBPF}.
 * @param jvsTraffic the maps that say which frames are jvs's, or null; required with
 *                   {@link AfPacketSteal#JVS_TRAFFIC}.
 */
public record AfPacketPrograms(BpfProgram fanout, XdpVipFilter jvsTraffic)
{
    /** No programs: no EBPF fanout and no selective steal. */
    public static final AfPacketPrograms NONE = new AfPacketPrograms(null, null);

    /** @return these programs with the group's fanout program. */
    public AfPacketPrograms withFanout(final BpfProgram program)
    {
        return new AfPacketPrograms(program, jvsTraffic);
    }

    /** @return these programs with the maps of the selective steal. */
    public AfPacketPrograms withJvsTraffic(final XdpVipFilter maps)
    {
        return new AfPacketPrograms(fanout, maps);
    }
}
