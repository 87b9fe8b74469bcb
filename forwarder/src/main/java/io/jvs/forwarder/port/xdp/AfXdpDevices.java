package io.jvs.forwarder.port.xdp;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpVipFilter;

/**
 * The AF_XDP side of the daemon: on every device, one socket per worker bound to the receive queue of the
 * worker's number, and one XDP program per device that redirects jvs's traffic (the VIP filter, over maps shared
 * by every device) to the socket of the queue it arrived on.
 * <pre>
 *   worker w:  UMEM w  ---  socket(device 0, queue w) = port 0
 *                      ---  socket(device 1, queue w) = port 1, sharing UMEM w (XDP_SHARED_UMEM, own fill and
 *                                                        completion rings)
 * </pre>
 * A frame received on one device and sent out of another by the same worker moves without a copy: every socket
 * of a worker shares its UMEM. Every socket stocks its fill ring from that UMEM, which is polled by the worker's
 * thread alone, so nothing here is shared between workers but the XDP programs and maps.
 * <p>
 * Opened in the calling thread's network namespace; each worker's ports are then polled by that worker only.
 */
public final class AfXdpDevices implements AutoCloseable
{
    private final String[] devices;
    private final int workers;
    private final Umem[] umems;
    private final AfXdpPort[][] ports;
    private final XdpAttachment[] attachments;
    private boolean closed;

    private AfXdpDevices(final String[] devices, final int workers)
    {
        this.devices = devices.clone();
        this.workers = workers;
        this.umems = new Umem[workers];
        this.ports = new AfXdpPort[workers][devices.length];
        this.attachments = new XdpAttachment[devices.length];
    }

    /**
     * Opens every socket, then attaches the programs (so no frame is redirected to a queue before its socket is in
     * the map).
     *
     * @param control        the bindings for opening and for the programs (this thread's).
     * @param workerSyscalls one instance per worker, which its ports use on the data path from now on.
     * @param devices        the interfaces, in port order.
     * @param settings       per device: rings, bind and XDP mode (steering must be VIP_FILTER); the UMEM geometry
     *                       and batch size are the first device's.
     * @param filter         the VIP, real-server and local-address maps every program reads.
     * @param portIndexes    per device, the index its ports carry (the interface's place among all ports).
     * @throws AfXdpPortException when a device is missing or down, or has fewer queues than workers.
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses a step.
     */
    public static AfXdpDevices open(final Syscalls control, final Syscalls[] workerSyscalls, final String[] devices,
        final AfXdpSettings[] settings, final XdpVipFilter filter, final int[] portIndexes)
    {
        final int workers = workerSyscalls.length;
        final AfXdpDevices opened = new AfXdpDevices(devices, workers);
        try
        {
            final AfXdpSettings first = settings[0];
            // Room for every fill ring, one RX ring's worth in flight and the TX ring, and no more: when sending
            // falls behind, the fill rings run dry and the kernel drops at receive, before it copies the frame and
            // before any work here, instead of the frame being received, processed and dropped at a full TX ring.
            final int chunks = Math.max(first.chunkCount(), (devices.length + 2) * first.fillRingSize());
            for (int w = 0; w < workers; w++)
            {
                opened.umems[w] = Umem.map(control, chunks, first.chunkSize());
                XdpSocket owner = null;
                for (int d = 0; d < devices.length; d++)
                {
                    final XdpSocket socket = XdpSocket.open(control, devices[d], w, opened.umems[w], owner,
                        settings[d]);
                    owner = owner == null ? socket : owner;
                    opened.ports[w][d] = new AfXdpPort(portIndexes[d], workerSyscalls[w], opened.umems[w], socket, true,
                        first.batchSize(), settings[d].busyPollBudget() > 0);
                }
            }
            for (int d = 0; d < devices.length; d++)
            {
                opened.attachments[d] = XdpAttachment.attach(control, devices[d], settings[d], workers, filter);
                for (int w = 0; w < workers; w++)
                {
                    opened.attachments[d].register(w, opened.ports[w][d].socketFd());
                }
            }
            return opened;
        }
        catch (final RuntimeException ex)
        {
            opened.close();
            throw ex;
        }
    }

    /**
     * Opens device {@code device}'s sockets and program again on the device that now has its name (deleted and
     * made again: the old sockets were unbound from it by xsk_notifier, and its XDP link went with it,
     * bpf_xdp_link_release's dev_xdp_uninstall at unregister_netdevice). Each new socket registers its worker's UMEM
     * again rather than share another socket's registration: the old owner of the registration may be this very
     * device's unbound socket, which XDP_SHARED_UMEM refuses (xsk_bind wants it XSK_BOUND), and a second
     * registration of the same memory only pins its pages twice. The new ports leave their fill rings empty: the
     * UMEM's free list belongs to the worker, which stocks them at its first receive. The old ports stay open for
     * the caller to close once no worker polls them; from now on {@link #close} closes the new ones.
     *
     * @param control        the bindings for opening and for the program (this thread's).
     * @param portSyscalls   per worker, the bindings its new port uses on the data path (used by nothing else).
     * @param settings       the device's, as {@link #open} had them.
     * @param filter         the maps the program reads.
     * @param portIndex      the index its ports carry.
     * @return the old ports, by worker.
     * @throws AfXdpPortException when the device is missing or down (nothing is changed then).
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses a step (nothing is changed then).
     */
    public AfXdpPort[] reopen(final Syscalls control, final int device, final Syscalls[] portSyscalls,
        final AfXdpSettings settings, final XdpVipFilter filter, final int portIndex)
    {
        final AfXdpPort[] opened = new AfXdpPort[workers];
        XdpAttachment attachment = null;
        try
        {
            for (int w = 0; w < workers; w++)
            {
                final XdpSocket socket = XdpSocket.open(control, devices[device], w, umems[w], null, settings);
                opened[w] = new AfXdpPort(portIndex, portSyscalls[w], umems[w], socket, true, settings.batchSize(),
                    settings.busyPollBudget() > 0, false);
            }
            attachment = XdpAttachment.attach(control, devices[device], settings, workers, filter);
            for (int w = 0; w < workers; w++)
            {
                attachment.register(w, opened[w].socketFd());
            }
        }
        catch (final RuntimeException ex)
        {
            if (attachment != null)
            {
                attachment.close();
            }
            for (final AfXdpPort port : opened)
            {
                if (port != null)
                {
                    port.close();
                }
            }
            throw ex;
        }
        final AfXdpPort[] old = new AfXdpPort[workers];
        for (int w = 0; w < workers; w++)
        {
            old[w] = ports[w][device];
            ports[w][device] = opened[w];
        }
        // Detached already with the device: this drops the program and its map of the old sockets.
        attachments[device].close();
        attachments[device] = attachment;
        return old;
    }

    /** @return worker {@code worker}'s port on device {@code device} (the {@code device}th of {@link #open}'s). */
    public AfXdpPort port(final int worker, final int device)
    {
        return ports[worker][device];
    }

    /** @return the frame memory every port of a worker shares. */
    public Umem umem(final int worker)
    {
        return umems[worker];
    }

    public int workers()
    {
        return workers;
    }

    /** @return e.g. "eth0 queues 0-1 copy mode, xdp drv (xdp)". */
    public String describe(final int device)
    {
        return devices[device] + " queues 0-" + (workers - 1) + " " + ports[0][device].mode();
    }

    /**
     * Detaches the programs first (the kernel then passes every frame up the stack), then closes the sockets and
     * unmaps the UMEMs. Safe to call twice and on a half-open set.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final XdpAttachment attachment : attachments)
        {
            if (attachment != null)
            {
                attachment.close();
            }
        }
        for (final AfXdpPort[] workerPorts : ports)
        {
            for (final AfXdpPort port : workerPorts)
            {
                if (port != null)
                {
                    port.close();
                }
            }
        }
        for (final Umem umem : umems)
        {
            if (umem != null)
            {
                umem.close();
            }
        }
    }
}
