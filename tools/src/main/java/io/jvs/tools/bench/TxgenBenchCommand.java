package io.jvs.tools.bench;

import io.jvs.forwarder.l2.ForwardingPair;
import io.jvs.forwarder.l2.UdpFlowGenerator;
import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.packet.AfPacketForwardingPair;
import io.jvs.forwarder.port.packet.AfPacketSettings;
import io.jvs.forwarder.port.xdp.AfXdpForwardingPair;
import io.jvs.forwarder.port.xdp.AfXdpSettings;
import io.jvs.forwarder.port.xdp.XdpBindMode;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.tools.CommandError;
import io.jvs.core.io.IoMessages;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code jvs bench txgen}: sends 64-byte UDP frames over 16064 flows as fast as one core can, the generator of
 * the wire benchmark when trafgen (one PACKET_TX_RING) is slower than what it measures.
 */
@Command(
    name = "txgen",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Sends 64-byte UDP frames out of --tx and prints the rate.",
        "The frames: 60-byte UDP/IPv4 (64 on the wire), source 172.16.[0-63].[1-251]",
        "port 0x4000-0x400f (16064 flows, as ../shared/bench/mkpkt.sh), sent in",
        "bursts, busy on this thread; it prints the frames queued per second. Pin it",
        "to a core. Only send into namespaces you made. With --rate the bursts are",
        "paced, each at its own time, so the load is that rate at every moment."})
public final class TxgenBenchCommand implements Callable<Integer>
{
    private static final long SECOND_NS = 1_000_000_000L;
    /** Below this a paced wait spins: a park can oversleep by about the default timer slack (50 us). */
    private static final long PARK_THRESHOLD_NS = 60_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = "--port", defaultValue = "afxdp", paramLabel = "KIND",
        description = "The port: afxdp (copy mode) or afpacket (default ${DEFAULT-VALUE}).")
    private String port;

    @Option(names = "--tx", required = true, paramLabel = "DEV", description = "The interface to send from.")
    private String device;

    @Option(names = "--dst-mac", required = true, paramLabel = "MAC", description = "The destination MAC of every " +
        "frame.")
    private String destinationMac;

    @Option(names = "--src-mac", paramLabel = "MAC", description = "The source MAC (default: the --tx interface's).")
    private String sourceMac;

    @Option(names = "--dst-ip", defaultValue = "10.0.0.100", paramLabel = "ADDRESS",
        description = "The IPv4 destination (default ${DEFAULT-VALUE}).")
    private String destinationIp;

    @Option(names = "--dst-port", defaultValue = "80", paramLabel = "PORT",
        description = "The UDP destination port (default ${DEFAULT-VALUE}).")
    private int destinationPort;

    @Option(names = "--burst", defaultValue = "64", paramLabel = "N",
        description = "Frames per burst (default ${DEFAULT-VALUE}).")
    private int burst;

    @Option(names = "--rate", defaultValue = "0", paramLabel = "N",
        description = "Frames per second, paced burst by burst (default 0: as fast as the core can).")
    private long rate;

    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N",
        description = "How long to send, in seconds (default ${DEFAULT-VALUE}).")
    private int seconds;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String kind = port.toLowerCase(Locale.ROOT);
        final byte[] destination;
        final byte[] source;
        final byte[] ip;
        try
        {
            if (!kind.equals("afxdp") && !kind.equals("afpacket"))
            {
                throw new IllegalArgumentException("--port must be afxdp or afpacket, not " + port);
            }
            if (seconds < 1)
            {
                throw new IllegalArgumentException("--seconds must be 1 or more, not " + seconds);
            }
            if (rate < 0)
            {
                throw new IllegalArgumentException("--rate must be 0 (as fast as the core can) or more, not " + rate);
            }
            if (burst < 1 || burst > 256)
            {
                throw new IllegalArgumentException("--burst must be 1..256, not " + burst);
            }
            if (destinationPort < 0 || destinationPort > 65535)
            {
                throw new IllegalArgumentException("--dst-port must be 0..65535, not " + destinationPort);
            }
            destination = MacAddresses.parse(destinationMac);
            source = sourceMac != null ? MacAddresses.parse(sourceMac) : MacAddresses.ofDevice(device);
            ip = ipv4(destinationIp);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
        catch (final IOException ex)
        {
            throw new CommandError(CommandError.REFUSED, IoMessages.describe(ex));
        }
        final ForwardingPair pair;
        try
        {
            pair = kind.equals("afxdp") ?
                AfXdpForwardingPair.open(Syscalls.create(), device, device,
                    AfXdpSettings.defaults(XdpMode.SKB).withBindMode(XdpBindMode.COPY)) :
                AfPacketForwardingPair.open(Syscalls.create(), device, device, AfPacketSettings.DEFAULT);
        }
        catch (final NativeCallException | IllegalArgumentException | IllegalStateException ex)
        {
            err.println("jvs bench txgen: cannot open the port: " + ex.getMessage());
            err.flush();
            return 1;
        }
        try (pair; UdpFlowGenerator generator = new UdpFlowGenerator(pair.transmitPort(), burst, destination, source,
            ip, destinationPort))
        {
            return send(pair, generator, out);
        }
    }

    private int send(final ForwardingPair pair, final UdpFlowGenerator generator, final PrintWriter out)
    {
        out.println("jvs bench txgen: " + pair.describe());
        out.flush();
        final PortCounters counters = pair.transmitPort().counters();
        final StopSignal stop = StopSignal.onShutdown();
        try
        {
            final long start = System.nanoTime();
            final BurstPacer pacer = rate > 0 ? new BurstPacer(start, rate, burst) : null;
            long secondStart = start;
            long sentBefore = 0;
            for (int second = 1; second <= seconds && !stop.getAsBoolean(); second++)
            {
                final long end = secondStart + SECOND_NS;
                long now = secondStart;
                int sinceCheck = 0;
                while (now - end < 0)
                {
                    if (pacer != null)
                    {
                        final long until = pacer.untilDue(now);
                        if (until > 0)
                        {
                            if (stop.getAsBoolean())
                            {
                                break;
                            }
                            waitFor(until);
                            now = System.nanoTime();
                            continue;
                        }
                        pacer.sent();
                    }
                    generator.sendBurst();
                    now = System.nanoTime();
                    if (++sinceCheck == 256)
                    {
                        sinceCheck = 0;
                        if (stop.getAsBoolean())
                        {
                            break;
                        }
                    }
                }
                out.printf(Locale.ROOT, "  %3d s  sent %10d  %6.3f Mpps%n", second, counters.txFrames() - sentBefore,
                    (counters.txFrames() - sentBefore) * 1e3 / (now - secondStart));
                out.flush();
                sentBefore = counters.txFrames();
                secondStart = now;
            }
            counters.refresh();
            out.printf(Locale.ROOT, "txgen %s: sent=%d seconds=%.1f Mpps=%.3f%n  %s%n", port, counters.txFrames(),
                (secondStart - start) / 1e9, counters.txFrames() * 1e3 / Math.max(1, secondStart - start), counters);
            out.flush();
            return 0;
        }
        finally
        {
            stop.finished();
        }
    }

    /**
     * Waits for a paced burst: parks while the wait is long (the core runs the sink's receive work too), spins
     * for the last stretch, which a park would overshoot by the kernel's timer slack.
     */
    private static void waitFor(final long nanos)
    {
        if (nanos > PARK_THRESHOLD_NS)
        {
            LockSupport.parkNanos(nanos - PARK_THRESHOLD_NS);
        }
        else
        {
            Thread.onSpinWait();
        }
    }

    private static byte[] ipv4(final String text)
    {
        try
        {
            final InetAddress address = InetAddress.getByName(text);
            if (!(address instanceof Inet4Address) || !Character.isDigit(text.charAt(0)))
            {
                throw new IllegalArgumentException("--dst-ip must be an IPv4 address, not " + text);
            }
            return address.getAddress();
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("--dst-ip must be an IPv4 address, not " + text);
        }
    }
}
