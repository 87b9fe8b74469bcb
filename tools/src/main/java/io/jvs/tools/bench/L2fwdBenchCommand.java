package io.jvs.tools.bench;

import io.jvs.forwarder.l2.ForwardingPair;
import io.jvs.forwarder.l2.L2ForwardRun;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.l2.MemoryForwardingPair;
import io.jvs.forwarder.port.packet.AfPacketForwardingPair;
import io.jvs.forwarder.port.packet.AfPacketSettings;
import io.jvs.forwarder.port.xdp.AfXdpForwardingPair;
import io.jvs.forwarder.port.xdp.AfXdpSettings;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import io.jvs.tools.CommandError;
import io.jvs.core.io.IoMessages;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jvs bench l2fwd}: the wire benchmark's forwarding loop. Every frame received on one interface leaves
 * by another with both MAC addresses rewritten; no pipeline, so it measures what the ports cost.
 */
@Command(
    name = "l2fwd",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Forwards frames from --rx to --tx and measures the rate.",
        "Every frame goes out with the destination MAC rewritten to --dst-mac and the",
        "source to --tx's own, busy polling on this thread. Prints one line per second",
        "and a summary: frames forwarded, Mpps, the forwarding thread's CPU ns per",
        "frame (user + system: meaningful when the loop is saturated, since it busy",
        "polls) and busy ns per frame (wall time of the polls that found frames).",
        "Run it pinned to a core, e.g.",
        "  taskset -c 1 tools/jvs bench l2fwd --port afxdp --rx l0 --tx l1 ...",
        "and stop it early with Ctrl-C (the summary is still printed)."})
public final class L2fwdBenchCommand implements Callable<Integer>
{
    private static final long SECOND_NS = 1_000_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = "--port", required = true, paramLabel = "KIND",
        description = "The ports: afxdp, afpacket or memory (synthetic frames, no syscalls).")
    private String port;

    @Option(names = "--rx", paramLabel = "DEV", description = "The interface frames come in on (not for memory).")
    private String receiveDevice;

    @Option(names = "--tx", paramLabel = "DEV", description = "The interface they leave by (default: the --rx one).")
    private String transmitDevice;

    @Option(names = "--dst-mac", paramLabel = "MAC",
        description = "The destination MAC written into every frame, such as 02:b0:00:00:01:02.")
    private String destinationMac;

    @Option(names = "--src-mac", paramLabel = "MAC",
        description = "The source MAC written into every frame (default: the --tx interface's).")
    private String sourceMac;

    @Option(names = "--xdp-mode", defaultValue = "drv", paramLabel = "MODE",
        description = "With afxdp, skb (generic) or drv (native) XDP (default ${DEFAULT-VALUE}).")
    private String xdpMode;

    @Option(names = "--busy-poll", description = "With afxdp, preferred busy polling (SO_PREFER_BUSY_POLL, budget " +
        "64): the receive queue's NAPI runs on this thread's core, driven by a recvfrom when the RX ring is empty. " +
        "Set the device's napi_defer_hard_irqs and gro_flush_timeout too, or the kernel runs it as well.")
    private boolean busyPoll;

    @Option(names = "--steal", description = "With afpacket, drops the kernel's originals of the received frames " +
        "at --rx's tcx ingress, after the AF_PACKET socket has its copy (a BPF link, gone when jvs exits). The " +
        "kernel then sees nothing --rx receives, ARP and SSH included: only on an interface dedicated to the " +
        "benchmark.")
    private boolean steal;

    @Option(names = "--paged-tx", description = "With afpacket, lets the kernel hang each sent frame on its skb as a " +
        "page of the TX ring (its default) instead of copying it into the skb's buffer (jvs's default, " +
        "PACKET_VNET_HDR); for comparison: devices that loop skbs back into the stack, veth among them, then copy " +
        "every frame again.")
    private boolean pagedTransmit;

    @Option(names = "--rx-block-kib", defaultValue = "256", paramLabel = "KIB", description = "With afpacket, the " +
        "receive block size in KiB (the ring stays 16 MiB); smaller blocks reach the loop sooner, which matters " +
        "with --idle wait (default ${DEFAULT-VALUE}).")
    private int rxBlockKib;

    @Option(names = "--idle", defaultValue = "spin", paramLabel = "HOW", description = "What to do after a poll " +
        "that found nothing: spin, yield, backoff (spin, then yield, then park up to 1 ms) or wait (afpacket: sleep " +
        "in poll(2) until the kernel hands over a receive block, which gives a shared core to the kernel's receive " +
        "work) (default ${DEFAULT-VALUE}).")
    private String idle;

    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N",
        description = "How long to measure, in seconds (default ${DEFAULT-VALUE}).")
    private int seconds;

    @Option(names = "--warmup", defaultValue = "2", paramLabel = "N",
        description = "Seconds forwarded before measuring (default ${DEFAULT-VALUE}).")
    private int warmupSeconds;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String kind = port.toLowerCase(Locale.ROOT);
        final String refusal = refusal(kind);
        if (refusal != null)
        {
            throw new ParameterException(spec.commandLine(), refusal);
        }
        final String txDevice = transmitDevice == null ? receiveDevice : transmitDevice;
        final byte[] destination;
        final byte[] source;
        try
        {
            destination = kind.equals("memory") && destinationMac == null ?
                MacAddresses.parse("02:00:00:00:00:02") : MacAddresses.parse(destinationMac);
            source = sourceMac != null ? MacAddresses.parse(sourceMac) :
                kind.equals("memory") ? MacAddresses.parse("02:00:00:00:00:01") : MacAddresses.ofDevice(txDevice);
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
            pair = open(kind, txDevice);
        }
        catch (final NativeCallException | IllegalArgumentException | IllegalStateException ex)
        {
            err.println("jvs bench l2fwd: cannot open the ports: " + ex.getMessage());
            err.flush();
            return 1;
        }
        try (pair)
        {
            return forward(pair, destination, source, out);
        }
    }

    private String refusal(final String kind)
    {
        if (!kind.equals("afxdp") && !kind.equals("afpacket") && !kind.equals("memory"))
        {
            return "--port must be afxdp, afpacket or memory, not " + port;
        }
        if (!kind.equals("memory") && (receiveDevice == null || destinationMac == null))
        {
            return "--port " + kind + " needs --rx and --dst-mac";
        }
        if (!xdpMode.equals("skb") && !xdpMode.equals("drv"))
        {
            return "--xdp-mode must be skb or drv, not " + xdpMode;
        }
        if (steal && !kind.equals("afpacket"))
        {
            return "--steal is for --port afpacket only (AF_XDP takes the frames itself)";
        }
        if (rxBlockKib < 4 || rxBlockKib > 16384 || Integer.bitCount(rxBlockKib) != 1)
        {
            return "--rx-block-kib must be a power of two from 4 to 16384, not " + rxBlockKib;
        }
        if (pagedTransmit && !kind.equals("afpacket"))
        {
            return "--paged-tx is for --port afpacket only";
        }
        if (!idle.equals("spin") && !idle.equals("yield") && !idle.equals("backoff") && !idle.equals("wait"))
        {
            return "--idle must be spin, yield, backoff or wait, not " + idle;
        }
        if (idle.equals("wait") && !kind.equals("afpacket"))
        {
            return "--idle wait is for --port afpacket only";
        }
        if (seconds < 1 || warmupSeconds < 0)
        {
            return "need --seconds >= 1 and --warmup >= 0";
        }
        return null;
    }

    private IdleStrategy idleStrategy(final ForwardingPair pair)
    {
        return switch (idle)
        {
            case "wait" -> new AwaitFramesIdleStrategy(((AfPacketForwardingPair)pair).receivePort());
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy(100, 10, 1_000, 1_000_000);
            default -> new BusySpinIdleStrategy();
        };
    }

    private ForwardingPair open(final String kind, final String txDevice)
    {
        return switch (kind)
        {
            case "memory" -> new MemoryForwardingPair();
            case "afpacket" -> AfPacketForwardingPair.open(Syscalls.create(), receiveDevice, txDevice,
                AfPacketSettings.DEFAULT.withStealing(steal).withLinearTransmit(!pagedTransmit)
                    .withRxRing(rxBlockKib << 10, (16 << 10) / rxBlockKib, AfPacketSettings.DEFAULT.retireTimeoutMs()));
            case "afxdp" -> AfXdpForwardingPair.open(Syscalls.create(), receiveDevice, txDevice,
                AfXdpSettings.defaults(xdpMode.equals("skb") ? XdpMode.SKB : XdpMode.DRV)
                    .withBusyPoll(busyPoll ? AfXdpSettings.DEFAULT_BATCH : 0));
            default -> throw new IllegalArgumentException("unknown port " + kind);
        };
    }

    private int forward(final ForwardingPair pair, final byte[] destination, final byte[] source, final PrintWriter out)
    {
        out.println("jvs bench l2fwd: " + pair.describe());
        out.flush();
        final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), destination, source);
        final L2ForwardRun run = new L2ForwardRun(loop, idleStrategy(pair));
        final StopSignal stop = StopSignal.onShutdown();
        try
        {
            run.run(warmupSeconds * SECOND_NS, stop);
            long received = 0;
            long forwarded = 0;
            long elapsedNs = 0;
            long cpuNs = 0;
            long allocated = 0;
            long busyPolls = 0;
            long busyNs = 0;
            for (int second = 1; second <= seconds && !stop.getAsBoolean(); second++)
            {
                final L2ForwardRun.Window window = run.run(SECOND_NS, stop);
                received += window.received();
                forwarded += window.forwarded();
                elapsedNs += window.elapsedNs();
                cpuNs += window.cpuNs();
                allocated += window.allocatedBytes();
                busyPolls += window.busyPolls();
                busyNs += window.busyNs();
                out.printf(Locale.ROOT,
                    "  %3d s  forwarded %10d  %6.3f Mpps  %7.1f cpu-ns/frame  %7.1f busy-ns/frame  burst %5.1f  " +
                    "allocated %d B%n",
                    second, window.forwarded(), window.forwardedMpps(), window.cpuNsPerFrame(), window.busyNsPerFrame(),
                    window.averageBurst(), window.allocatedBytes());
                out.flush();
            }
            final L2ForwardRun.Window total =
                new L2ForwardRun.Window(received, forwarded, elapsedNs, cpuNs, 0, busyPolls, busyNs, allocated);
            out.printf(Locale.ROOT,
                "l2fwd %s: received=%d forwarded=%d dropped=%d seconds=%.1f Mpps=%.3f cpu-ns/frame=%.1f " +
                "busy-ns/frame=%.1f avg-burst=%.1f allocated-bytes=%d%n",
                port.toLowerCase(Locale.ROOT), total.received(), total.forwarded(), total.received() - total.forwarded(),
                total.elapsedNs() / 1e9, total.forwardedMpps(), total.cpuNsPerFrame(), total.busyNsPerFrame(), total.averageBurst(),
                total.allocatedBytes());
            out.println("  " + L2ForwardRun.describe("rx port", pair.receivePort().counters()));
            if (pair.transmitPort() != pair.receivePort())
            {
                out.println("  " + L2ForwardRun.describe("tx port", pair.transmitPort().counters()));
            }
            out.flush();
            return 0;
        }
        finally
        {
            stop.finished();
        }
    }
}
