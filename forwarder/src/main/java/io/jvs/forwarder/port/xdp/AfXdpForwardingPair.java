package io.jvs.forwarder.port.xdp;

import io.jvs.forwarder.l2.ForwardingPair;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpVipFilter;

/**
 * AF_XDP ports for forwarding frames from one device to another without a copy in user space: for each
 * queue, a receive port and a transmit port over one UMEM of their own, polled by one worker thread. What
 * {@code jvs bench l2fwd --port afxdp} opens:
 * <pre>{@code
 * try (AfXdpForwardingPair pair = AfXdpForwardingPair.open(Syscalls.create(), "fA", "fB",
 *         AfXdpSettings.defaults(XdpMode.SKB)))
 * {
 *     System.out.println(pair.describe());
 *     MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), dstMac,
 *         pair.transmitMac());
 *     while (running) loop.poll(System.nanoTime());
 * }
 * }</pre>
 * The receive device gets the XDP program, which redirects each queue to its receive socket (the XSKMAP is
 * keyed by queue id). The transmit device gets, per queue, a socket sharing that queue's UMEM, with fill
 * and completion rings of its own and no program. When both devices are the same, one socket per queue
 * serves both directions and the two ports are the same object.
 * <p>
 * Opening needs CAP_NET_RAW, CAP_BPF and CAP_NET_ADMIN (and CAP_IPC_LOCK beyond RLIMIT_MEMLOCK) and happens
 * in the calling thread's network namespace; each queue's ports may then be polled from any one thread.
 */
public final class AfXdpForwardingPair implements ForwardingPair
{
    private static final System.Logger LOG = System.getLogger(AfXdpForwardingPair.class.getName());

    private final AfXdpSettings settings;
    private final Umem[] umems;
    private final AfXdpPort[] receivePorts;
    private final AfXdpPort[] transmitPorts;
    private XdpAttachment attachment;
    private boolean closed;

    private AfXdpForwardingPair(final AfXdpSettings settings)
    {
        this.settings = settings;
        this.umems = new Umem[settings.queues()];
        this.receivePorts = new AfXdpPort[settings.queues()];
        this.transmitPorts = new AfXdpPort[settings.queues()];
    }

    /**
     * Opens the ports of queues {@link AfXdpSettings#queue()} onwards on both devices, then attaches the XDP
     * program to the receive device.
     *
     * @param syscalls the bindings the ports use on the data path (the polling thread's from now on).
     * @throws AfXdpPortException when a device is missing or down.
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses a step; it names the step,
     *                   the errno and the missing capability.
     */
    public static AfXdpForwardingPair open(final Syscalls syscalls, final String receiveDevice,
        final String transmitDevice, final AfXdpSettings settings)
    {
        final AfXdpForwardingPair pair = new AfXdpForwardingPair(settings);
        try
        {
            for (int i = 0; i < settings.queues(); i++)
            {
                pair.openQueue(syscalls, i, receiveDevice, transmitDevice);
            }
            pair.attachment = XdpAttachment.attach(syscalls, receiveDevice, settings,
                settings.queue() + settings.queues());
            for (int i = 0; i < settings.queues(); i++)
            {
                pair.attachment.register(settings.queue() + i, pair.receivePorts[i].socketFd());
            }
        }
        catch (final RuntimeException ex)
        {
            pair.close();
            throw ex;
        }
        LOG.log(System.Logger.Level.INFO, pair.describe());
        return pair;
    }

    private void openQueue(final Syscalls syscalls, final int i, final String receiveDevice,
        final String transmitDevice)
    {
        final int queue = settings.queue() + i;
        umems[i] = Umem.map(syscalls, settings.chunkCount(), settings.chunkSize());
        final XdpSocket receiveSocket = XdpSocket.open(syscalls, receiveDevice, queue, umems[i], null, settings);
        receivePorts[i] = new AfXdpPort(0, syscalls, umems[i], receiveSocket, true, settings.batchSize(),
            settings.busyPollBudget() > 0);
        if (receiveDevice.equals(transmitDevice))
        {
            transmitPorts[i] = receivePorts[i];
        }
        else
        {
            final XdpSocket transmitSocket = XdpSocket.open(syscalls, transmitDevice, queue, umems[i],
                receiveSocket, settings);
            transmitPorts[i] = new AfXdpPort(1, syscalls, umems[i], transmitSocket, false,
                settings.batchSize(), false);
        }
    }

    /** @return how many queues, each with its own ports and UMEM. */
    public int queues()
    {
        return receivePorts.length;
    }

    /** @return the port frames arrive on, of the first queue (port index 0). */
    public Port receivePort()
    {
        return receivePorts[0];
    }

    /** @return the port frames leave by, of the first queue (port index 1, or the receive port on one device). */
    public Port transmitPort()
    {
        return transmitPorts[0];
    }

    /** @return the receive port of queue {@code queue() + i}. */
    public Port receivePort(final int i)
    {
        return receivePorts[i];
    }

    /** @return the transmit port of queue {@code queue() + i}. */
    public Port transmitPort(final int i)
    {
        return transmitPorts[i];
    }

    /** @return the transmit device's MAC address, the natural source address of forwarded frames. */
    public byte[] transmitMac()
    {
        return transmitPorts[0].mac();
    }

    /** @return the frame memory of the first queue's ports. */
    public Umem umem()
    {
        return umems[0];
    }

    /** @return the frame memory of queue {@code queue() + i}. */
    public Umem umem(final int i)
    {
        return umems[i];
    }

    /** @return the VIP and real-server maps when steering is {@link XdpSteering#VIP_FILTER}, else null. */
    public XdpVipFilter vipFilter()
    {
        return attachment.vipFilter();
    }

    /**
     * @return one line for logs and benchmark reports: devices and queues, socket mode, XDP mode, rings, UMEM.
     */
    @Override
    public String describe()
    {
        final StringBuilder ports = new StringBuilder("afxdp ");
        for (int i = 0; i < receivePorts.length; i++)
        {
            ports.append(i == 0 ? "" : ", ").append(receivePorts[i].name()).append(" -> ")
                .append(transmitPorts[i].name());
        }
        return ports + ", " + receivePorts[0].mode() + ", xdp " + settings.xdpMode() + " (" +
            settings.xdpMode().ipLinkName() + "), steering " + settings.steering() + ", rings rx " +
            settings.rxRingSize() + " tx " + settings.txRingSize() + " fill " + settings.fillRingSize() +
            " completion " + settings.completionRingSize() + ", umem " + settings.chunkCount() + " x " +
            settings.chunkSize() + " B per queue, batch " + settings.batchSize() +
            (settings.busyPollBudget() > 0 ? ", preferred busy polling (budget " + settings.busyPollBudget() + ")" :
            "");
    }

    /**
     * Detaches the XDP program, then unmaps each socket's rings and closes it, then unmaps the UMEMs.
     * Safe to call twice, and on a pair that failed half-way through opening.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (attachment != null)
        {
            attachment.close();
        }
        for (int i = 0; i < receivePorts.length; i++)
        {
            if (transmitPorts[i] != null)
            {
                transmitPorts[i].close();
            }
            if (receivePorts[i] != null)
            {
                receivePorts[i].close();
            }
            if (umems[i] != null)
            {
                umems[i].close();
            }
        }
    }
}
