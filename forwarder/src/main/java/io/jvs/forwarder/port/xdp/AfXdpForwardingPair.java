package io.jvs.forwarder.port.xdp;

import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpVipFilter;

/**
 * Two AF_XDP ports over one UMEM, for forwarding frames from one device to another without a copy in user
 * space: what {@code jvs bench l2fwd --port afxdp} opens.
 * <pre>{@code
 * try (AfXdpForwardingPair pair = AfXdpForwardingPair.open(Syscalls.create(), "fA", "fB",
 *         AfXdpSettings.defaults(XdpMode.SKB)))
 * {
 *     System.out.println(pair.describe());
 *     MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), dstMac, srcMac);
 *     while (running) loop.poll(System.nanoTime());
 * }
 * }</pre>
 * The receive device gets the XDP program (redirecting its queue to the receive socket); the transmit
 * device gets a socket sharing the UMEM, with fill and completion rings of its own and no program. When
 * both devices are the same, one socket serves both directions and both ports are the same object.
 * Opening needs CAP_NET_RAW, CAP_BPF and CAP_NET_ADMIN (and CAP_IPC_LOCK beyond RLIMIT_MEMLOCK) and happens
 * in the calling thread's network namespace; the ports may then be polled from any one thread.
 */
public final class AfXdpForwardingPair implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(AfXdpForwardingPair.class.getName());

    private final AfXdpSettings settings;
    private final Umem umem;
    private final AfXdpPort receivePort;
    private final AfXdpPort transmitPort;
    private final XdpAttachment attachment;
    private boolean closed;

    private AfXdpForwardingPair(final AfXdpSettings settings, final Umem umem, final AfXdpPort receivePort,
        final AfXdpPort transmitPort, final XdpAttachment attachment)
    {
        this.settings = settings;
        this.umem = umem;
        this.receivePort = receivePort;
        this.transmitPort = transmitPort;
        this.attachment = attachment;
    }

    /**
     * Opens the pair: UMEM, sockets on queue {@link AfXdpSettings#queue()} of each device, XDP program on the
     * receive device.
     *
     * @param syscalls the bindings the ports use on the data path (the polling thread's from now on).
     * @throws AfXdpPortException when a device is missing or down.
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses a step; it names the step,
     *                   the errno and the missing capability.
     */
    public static AfXdpForwardingPair open(final Syscalls syscalls, final String receiveDevice,
        final String transmitDevice, final AfXdpSettings settings)
    {
        Umem umem = null;
        XdpSocket receiveSocket = null;
        XdpSocket transmitSocket = null;
        try
        {
            umem = Umem.map(syscalls, settings.chunkCount(), settings.chunkSize());
            receiveSocket = XdpSocket.open(syscalls, receiveDevice, umem, null, settings);
            final boolean oneDevice = receiveDevice.equals(transmitDevice);
            if (!oneDevice)
            {
                transmitSocket = XdpSocket.open(syscalls, transmitDevice, umem, receiveSocket, settings);
            }
            final XdpAttachment attachment = XdpAttachment.attach(syscalls, receiveDevice, settings,
                settings.queue() + 1);
            attachment.register(settings.queue(), receiveSocket.fd());
            final AfXdpPort receivePort = new AfXdpPort(0, syscalls, umem, receiveSocket, true,
                settings.batchSize());
            final AfXdpPort transmitPort = oneDevice ? receivePort :
                new AfXdpPort(1, syscalls, umem, transmitSocket, false, settings.batchSize());
            final AfXdpForwardingPair pair = new AfXdpForwardingPair(settings, umem, receivePort, transmitPort,
                attachment);
            LOG.log(System.Logger.Level.INFO, pair.describe());
            return pair;
        }
        catch (final RuntimeException ex)
        {
            if (transmitSocket != null)
            {
                transmitSocket.close();
            }
            if (receiveSocket != null)
            {
                receiveSocket.close();
            }
            if (umem != null)
            {
                umem.close();
            }
            throw ex;
        }
    }

    /** @return the port frames arrive on (port index 0). */
    public Port receivePort()
    {
        return receivePort;
    }

    /** @return the port frames leave by (port index 1, or the receive port itself on one device). */
    public Port transmitPort()
    {
        return transmitPort;
    }

    /** @return the VIP and real-server maps when steering is {@link XdpSteering#VIP_FILTER}, else null. */
    public XdpVipFilter vipFilter()
    {
        return attachment.vipFilter();
    }

    /** @return the shared frame memory. */
    public Umem umem()
    {
        return umem;
    }

    /**
     * @return one line for logs and benchmark reports: devices, socket mode, XDP mode, rings, UMEM.
     */
    public String describe()
    {
        return "afxdp " + receivePort.name() + " -> " + transmitPort.name() + ", " + receivePort.mode() +
            ", xdp " + settings.xdpMode() + " (" + settings.xdpMode().ipLinkName() + "), steering " +
            settings.steering() + ", rings rx " + settings.rxRingSize() + " tx " + settings.txRingSize() +
            " fill " + settings.fillRingSize() + " completion " + settings.completionRingSize() + ", umem " +
            settings.chunkCount() + " x " + settings.chunkSize() + " B, batch " + settings.batchSize();
    }

    /**
     * Detaches the XDP program, then unmaps each socket's rings and closes it, then unmaps the UMEM.
     * Safe to call twice.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        attachment.close();
        transmitPort.close();
        receivePort.close();
        umem.close();
    }
}
