package io.jvs.forwarder.port.xdp;

import java.util.Map;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import io.jvs.nativebindings.bpf.XdpLink;
import io.jvs.nativebindings.bpf.XdpPrograms;
import io.jvs.nativebindings.bpf.XdpVipFilter;

/**
 * The XDP side of a receiving device: an XSKMAP from receive queue to AF_XDP socket, the program that
 * redirects into it (every frame, or only jvs's traffic), and the link that attaches the program. A queue
 * without a socket passes its frames to the kernel. The link is an fd: the kernel detaches the program when
 * this closes or the process dies, so a killed jvs leaves no program steering frames to nobody.
 */
final class XdpAttachment implements AutoCloseable
{
    private final BpfMap sockets;
    private final XdpVipFilter vipFilter;
    private final BpfProgram program;
    private final XdpLink link;

    private XdpAttachment(final BpfMap sockets, final XdpVipFilter vipFilter, final BpfProgram program,
        final XdpLink link)
    {
        this.sockets = sockets;
        this.vipFilter = vipFilter;
        this.program = program;
        this.link = link;
    }

    /**
     * Loads and attaches the program to {@code device} in the calling thread's namespace, its map empty.
     *
     * @param queues the map's entries: receive queues 0..queues-1 may get a socket.
     */
    static XdpAttachment attach(final Syscalls syscalls, final String device, final AfXdpSettings settings,
        final int queues)
    {
        return attach(syscalls, device, settings, queues, null);
    }

    /**
     * As {@link #attach(Syscalls, String, AfXdpSettings, int)}, with VIP_FILTER steering over maps the caller owns
     * and shares between devices (and with other programs), or null to make this attachment's own.
     */
    static XdpAttachment attach(final Syscalls syscalls, final String device, final AfXdpSettings settings,
        final int queues, final XdpVipFilter sharedFilter)
    {
        BpfMap sockets = null;
        XdpVipFilter vipFilter = null;
        BpfProgram program = null;
        try
        {
            sockets = BpfMap.createXskMap(syscalls, "jvs_xsks", queues);
            if (settings.steering() == XdpSteering.VIP_FILTER)
            {
                vipFilter = sharedFilter != null ? sharedFilter : XdpVipFilter.create(syscalls, 1024);
                program = vipFilter.loadProgram(syscalls, "jvs_xsk_vips", sockets);
                if (sharedFilter != null)
                {
                    vipFilter = null;
                }
            }
            else
            {
                program = BpfProgram.loadXdp(syscalls, "jvs_xsk_all",
                    XdpPrograms.redirectAll(XdpAction.PASS).link(Map.of(XdpPrograms.XSKS, sockets.fd())));
            }
            final XdpLink link = XdpLink.attach(syscalls, program, device, settings.xdpMode());
            return new XdpAttachment(sockets, vipFilter, program, link);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(program);
            closeQuietly(vipFilter);
            closeQuietly(sockets);
            throw ex;
        }
    }

    /** Frames of {@code queue} go to the socket from now on; call after the socket is bound. */
    void register(final int queue, final int socketFd)
    {
        sockets.put(queue, socketFd);
    }

    /** @return the VIP and real-server maps this attachment owns, or null (every frame redirected, or shared maps). */
    XdpVipFilter vipFilter()
    {
        return vipFilter;
    }

    XdpLink link()
    {
        return link;
    }

    /**
     * @return the frames the VIP filter program would have redirected to a queue that had no socket here, and
     *         passed to the kernel instead (a queue jvs did not bind, or a socket gone); 0 with
     *         {@link XdpSteering#ALL}, whose program (the benchmark's) does not count. A map read, for the control
     *         path.
     */
    long unplacedFrames()
    {
        return vipFilter == null ? 0 : vipFilter.unplacedFrames();
    }

    /** Detaches the program, then drops the program and maps (the map's references to the sockets go too). */
    @Override
    public void close()
    {
        link.close();
        program.close();
        closeQuietly(vipFilter);
        sockets.close();
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        if (closeable != null)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignored)
            {
                // Already failing: the first exception is the one to report.
            }
        }
    }
}
