package io.jvs.core.pipeline;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pcap.EndReason;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapFormatException;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pcap.TcpdumpCorpus;
import io.jvs.core.stats.TrafficStatsDescriptor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every record of tcpdump's test captures ({@code shared/corpus/tcpdump-tests}: 830 captures, many of
 * them fuzzed) goes through a pipeline whose services catch all of it: every frame carries firewall mark
 * 1, and mark 1 is an IPv4 service (wlc) and an IPv6 service (sh) with NAT, direct-routing and tunnel
 * servers (and one tunnel server of the other family each). So every TCP SYN, UDP datagram and SCTP
 * packet of the corpus opens a connection or follows one and is rewritten, and whatever else is in it
 * (truncated, fuzzed, non-IP, other link layers) must still get exactly one verdict.
 * <p>
 * For the way back, each TCP, UDP or SCTP frame sent to a NAT server is answered as the server would
 * (addresses and ports swapped, unmarked, from the server's MAC) in the next burst: jvs must send that
 * reply to the gateway as from the virtual endpoint the client addressed.
 * <p>
 * Checked per file and in total: nothing throws; frames in = transmitted + passed + dropped (from the
 * counters and, independently, from the verdicts); drops by reason add up to the drops plus the drops
 * answered with ICMP; no write outside a frame's headroom and capacity (guard bytes around each frame);
 * a transmitted frame stays within its buffer; a checksum (IPv4 header, TCP, UDP, ICMP, SCTP CRC-32C)
 * that was valid on the way in is not invalid on the way out; a later fragment of a datagram whose first
 * fragment was forwarded is not dropped. Prints a summary; {@code -Djvs.corpusTrace=FILE} prints the
 * verdict of every frame of one capture.
 * <p>
 * Link layers: Ethernet as captured; raw IP (RAW, IPV4, IPV6), BSD loopback (NULL, LOOP) and Linux
 * cooked captures (LINUX_SLL, LINUX_SLL2) get an Ethernet header in place of theirs; any other link type
 * is fed as if it were Ethernet.
 */
class CorpusThroughPipelineTest
{
    /** Records in the corpus at tcpdump commit 39b50f76 with captured-above-original records accepted. */
    private static final long CORPUS_RECORDS = 10_183;

    private static final int BURST = 32;
    private static final int HEADROOM = 256;
    /** What a port's buffer holds: a frame gets this much capacity, or its own length if it is longer. */
    private static final int FRAME_SIZE = 2048;
    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte)0xA5;
    /** Room for the longest record the reader delivers, with an Ethernet header built in front of it. */
    private static final int SLOT_CAPACITY = PcapReader.DEFAULT_MAX_CAPTURED_LENGTH + 14;
    private static final int SLOT = GUARD + HEADROOM + SLOT_CAPACITY + GUARD;

    /** Between files the clock jumps past every timeout, so no connection outlives its capture. */
    private static final long BETWEEN_FILES_NS = 3_600_000_000_000L;
    /** The most the clock moves between two records of a file (fuzzed timestamps jump by years). */
    private static final long MAX_STEP_NS = 600_000_000_000L;

    private static final long PEER_MAC = TestFrames.CLIENT_MAC;
    private static final long JVS_MAC = TestFrames.JVS_MAC;

    /** -Djvs.corpusTrace=FILE prints every record of that capture with its verdict. */
    private static final String TRACE = System.getProperty("jvs.corpusTrace", "");

    private static Path corpus;
    private static List<Path> files;

    @BeforeAll
    static void findCorpus()
    {
        corpus = TcpdumpCorpus.directory();
        files = TcpdumpCorpus.files();
    }

    /** The policies the corpus is run under. */
    enum Policy
    {
        /** The kernel's defaults: only a SYN opens a TCP connection, unmatched packets go to the host. */
        KERNEL_DEFAULTS(DataPlaneSettings.defaults()),
        /**
         * sloppy_tcp (every TCP packet but a RST opens a connection), expire_nodest_conn, unmatched packets
         * dropped, IPv4 options and fragments refused, MSS clamping on.
         */
        SLOPPY_AND_STRICT(settings(Map.of("passUnmatched", false, "allowIpOptions", false, "allowFragments", false,
            "expireNodestConn", true, "sloppyTcp", true, "clampMss", true)));

        final DataPlaneSettings settings;

        Policy(final DataPlaneSettings settings)
        {
            this.settings = settings;
        }
    }

    /**
     * The defaults with some components changed, by name (so that a component added to the record does not
     * break this test; one renamed or removed does).
     */
    private static DataPlaneSettings settings(final Map<String, Object> changes)
    {
        final DataPlaneSettings defaults = DataPlaneSettings.defaults();
        final java.lang.reflect.RecordComponent[] components = DataPlaneSettings.class.getRecordComponents();
        final Class<?>[] types = new Class<?>[components.length];
        final Object[] values = new Object[components.length];
        try
        {
            for (int c = 0; c < components.length; c++)
            {
                types[c] = components[c].getType();
                values[c] = changes.containsKey(components[c].getName()) ? changes.get(components[c].getName())
                    : components[c].getAccessor().invoke(defaults);
            }
            final DataPlaneSettings settings = DataPlaneSettings.class.getDeclaredConstructor(types).newInstance(values);
            for (final java.lang.reflect.RecordComponent component : components)
            {
                if (changes.containsKey(component.getName()))
                {
                    assertThat(component.getAccessor().invoke(settings)).isEqualTo(changes.get(component.getName()));
                }
            }
            assertThat(java.util.Arrays.stream(components).map(java.lang.reflect.RecordComponent::getName).toList())
                .as("DataPlaneSettings components").containsAll(changes.keySet());
            return settings;
        }
        catch (final ReflectiveOperationException e)
        {
            throw new AssertionError("cannot build DataPlaneSettings", e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Policy.class)
    void shouldAccountForEveryCorpusFrameWhenEveryFrameIsMarkedForTheCatchAllServices(final Policy policy)
        throws IOException
    {
        final Run run = new Run(policy.settings);
        for (final Path file : files)
        {
            run.file(file);
        }
        System.out.println("tcpdump corpus " + corpus + " through the pipeline, " + policy + ":");
        System.out.print(run.summary());

        assertThat(run.problems).as("exceptions, broken invariants, writes out of bounds").isEmpty();
        assertThat(run.refused).as("files refused at open").containsOnlyKeys("LICENSE", "README.md");
        assertThat(run.opened).isEqualTo(files.size() - 2);
        assertThat(run.earlyEnds).as("captures not read to their end").isEmpty();
        assertThat(run.records).isEqualTo(CORPUS_RECORDS);

        final WorkerCounters counters = run.pipeline.counters();
        assertThat(counters.frames()).isEqualTo(run.frames);
        assertThat(counters.transmitted() + counters.passed() + counters.dropped()).isEqualTo(run.frames);
        assertThat(run.verdicts[Verdict.TRANSMIT]).isEqualTo(counters.transmitted());
        assertThat(run.verdicts[Verdict.PASS]).isEqualTo(counters.passed());
        assertThat(run.verdicts[Verdict.DROP]).isEqualTo(counters.dropped());
        assertThat(run.dropsByReason()).as("drops by reason = drops + drops answered with ICMP")
            .isEqualTo(counters.dropped() + counters.icmpSent());
        // The services were hit: connections made, packets rewritten for each method, ICMP answered.
        assertThat(counters.connections()).isPositive();
        assertThat(counters.transmitted()).isPositive();
        assertThat(counters.icmpSent()).isPositive();
        assertThat(run.transmittedByMethod).containsKeys("nat", "dr", "tun");
        assertThat(run.serverConnections()).isEqualTo(counters.connections());
        assertThat(run.integrityChecked).isPositive();
        // The way back: replies to NAT'd frames were rewritten back to the virtual service.
        assertThat(run.replies).isPositive();
        assertThat(run.repliesRestored).isEqualTo(run.replies);
        // Only a few go back as from another endpoint the client port sent to (hncp.pcap: 3, a multicast
        // request and a unicast one from the same port, on the same server); many would mean a reverse
        // lookup that finds the wrong connection.
        assertThat(run.repliesAmbiguous).isLessThan(run.replies / 10);
    }

    /** One pipeline over the whole corpus, and what it did. */
    private static final class Run
    {
        private static final String[] SERVERS = {"198.18.6.2", "198.18.6.3", "198.18.6.4", "198.18.6.5",
            "198.18.6.6", "198.18.6.7", "198.18.6.8", "fd00:6a76:7300::2", "fd00:6a76:7300::3", "fd00:6a76:7300::4",
            "fd00:6a76:7300::5", "fd00:6a76:7300::6", "fd00:6a76:7300::7", "fd00:6a76:7300::8"};

        final PipelineFixture fixture = new PipelineFixture();
        final Pipeline pipeline;
        final FrameBurst burst = new FrameBurst();
        final ByteBuffer memory = ByteBuffer.allocateDirect(BURST * SLOT);
        final long base = Frames.addressOf(memory);
        final Integrity[] before = new Integrity[BURST];
        final long[] recordOf = new long[BURST];
        final long[] senderMacOf = new long[BURST];
        final Reply[] replyOf = new Reply[BURST];
        final byte[][] inputOf = new byte[BURST][];
        final List<byte[]> replyFrames = new ArrayList<>();
        final List<Reply> replyExpectations = new ArrayList<>();
        final long[] verdicts = new long[4];
        final List<String> problems = new ArrayList<>();
        final Map<String, String> refused = new TreeMap<>();
        final Map<String, String> earlyEnds = new TreeMap<>();
        final Map<String, Long> linkTypes = new TreeMap<>();
        final Map<String, Long> transmittedByMethod = new TreeMap<>();
        final Map<String, Long> outgoingL4 = new TreeMap<>();
        final Map<String, Long> replyVerdicts = new TreeMap<>();
        final Map<String, long[]> perFile = new LinkedHashMap<>();
        final Map<Integer, String> methodOfServer = new TreeMap<>();
        /**
         * The endpoints each (protocol, client, client port) of the current file sent to. Flows from one
         * client port to two virtual endpoints that land on the same server look the same from the server's
         * side, and the reply to either may be sent back as from either (as in the kernel). The flow may be
         * a connection whose first packet was then dropped (TTL expired, as the kernel does).
         */
        final Map<String, java.util.Set<String>> natFlows = new java.util.HashMap<>();
        /** The IPv4 datagrams of the current file whose first fragment was forwarded to a server. */
        final java.util.Set<String> forwardedFirstFragments = new java.util.HashSet<>();
        long laterFragmentsOfForwarded;
        int opened;
        /** Corpus records handed in. */
        long records;
        /** Every frame handed in: the records and the replies made up for NAT'd ones. */
        long frames;
        long replies;
        long repliesRestored;
        long repliesAmbiguous;
        long integrityChecked;
        long nowNs = 1_000_000_000L;
        String fileName;

        Run(final DataPlaneSettings settings)
        {
            fixture.settings = settings;
            fixture.rules(
                "-A -f 1 -s wlc",
                "-a -f 1 -r 198.18.6.2:0 -m", "-a -f 1 -r 198.18.6.3:0 -m -w 2",
                "-a -f 1 -r 198.18.6.4:0 -g", "-a -f 1 -r 198.18.6.5:0 -g -w 2",
                "-a -f 1 -r 198.18.6.6:0 -i", "-a -f 1 -r 198.18.6.7:0 -i -w 2",
                "-a -f 1 -r [fd00:6a76:7300::8]:0 -i",
                "-A -f 1 -6 -s sh",
                "-a -f 1 -6 -r [fd00:6a76:7300::2]:0 -m", "-a -f 1 -6 -r [fd00:6a76:7300::3]:0 -m",
                "-a -f 1 -6 -r [fd00:6a76:7300::4]:0 -g", "-a -f 1 -6 -r [fd00:6a76:7300::5]:0 -g",
                "-a -f 1 -6 -r [fd00:6a76:7300::6]:0 -i", "-a -f 1 -6 -r [fd00:6a76:7300::7]:0 -i",
                "-a -f 1 -6 -r 198.18.6.8:0 -i");
            for (int s = 0; s < SERVERS.length; s++)
            {
                fixture.neighbour(SERVERS[s], 0x02_00_00_00_01_00L + s);
            }
            final DataPlane plane = fixture.plane();
            for (int slot = 1; slot < plane.servers.length; slot++)
            {
                if (plane.servers[slot] != null)
                {
                    methodOfServer.put(slot, switch (plane.forwardMethod[slot])
                    {
                        case 0 -> "nat";
                        case 1 -> "dr";
                        default -> "tun";
                    });
                }
            }
            assertThat(methodOfServer).hasSize(SERVERS.length);
            fixture.publisher = new DataPlanePublisher(plane);
            pipeline = new Pipeline(fixture.publisher, 0, 16384, 16384, 64, 256, 1000);
            fixture.pipeline = pipeline;
        }

        void file(final Path file) throws IOException
        {
            fileName = file.getFileName().toString();
            final PcapReader reader;
            try
            {
                reader = PcapReader.open(file, PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, true);
            }
            catch (final PcapFormatException e)
            {
                refused.put(fileName, e.getMessage());
                return;
            }
            opened++;
            final WorkerCounters counters = pipeline.counters();
            final long framesBefore = counters.frames();
            final long transmittedBefore = counters.transmitted();
            final long passedBefore = counters.passed();
            final long droppedBefore = counters.dropped();
            final long verdictsBefore = verdicts[Verdict.TRANSMIT] + verdicts[Verdict.PASS] + verdicts[Verdict.DROP];
            final long handedInBefore = frames;
            natFlows.clear();
            forwardedFirstFragments.clear();
            try (reader)
            {
                nowNs += BETWEEN_FILES_NS;
                long previousTimestamp = Long.MIN_VALUE;
                burst.clear();
                burst.ingressPort = 0;
                while (reader.next())
                {
                    final long timestamp = reader.timestampNs();
                    if (previousTimestamp != Long.MIN_VALUE)
                    {
                        nowNs += Math.max(0, Math.min(MAX_STEP_NS, timestamp - previousTimestamp));
                    }
                    previousTimestamp = timestamp;
                    add(reader);
                    records++;
                    if (burst.count == BURST)
                    {
                        flush();
                    }
                }
                flush();
                if (reader.endReason() != EndReason.END_OF_FILE)
                {
                    earlyEnds.put(fileName, reader.toString());
                }
            }
            final long handedIn = frames - handedInBefore;
            final long fileFrames = counters.frames() - framesBefore;
            final long transmitted = counters.transmitted() - transmittedBefore;
            final long passed = counters.passed() - passedBefore;
            final long dropped = counters.dropped() - droppedBefore;
            perFile.put(fileName, new long[] {handedIn, transmitted, passed, dropped});
            if (fileFrames != handedIn || transmitted + passed + dropped != handedIn)
            {
                problems.add(String.format("%s: %d frames in, pipeline counted %d: %d transmitted + %d passed"
                    + " + %d dropped", fileName, handedIn, fileFrames, transmitted, passed, dropped));
            }
            final long byVerdict = verdicts[Verdict.TRANSMIT] + verdicts[Verdict.PASS] + verdicts[Verdict.DROP]
                - verdictsBefore;
            if (byVerdict != handedIn)
            {
                problems.add(fileName + ": " + handedIn + " frames in, " + byVerdict + " verdicts");
            }
        }

        /** Copies the current record into the next slot, behind an Ethernet header if its link has none. */
        private void add(final PcapReader reader)
        {
            final long frame = frameAddress(burst.count);
            final int linkType = reader.linkType();
            final long record = reader.address();
            final int captured = reader.capturedLength();
            int linkHeader = 0;
            int etherType = -1;
            switch (linkType)
            {
                case LinkType.ETHERNET ->
                {
                }
                case LinkType.RAW, LinkType.IPV4, LinkType.IPV6 ->
                    etherType = linkType == LinkType.IPV4 ? 0x0800 : linkType == LinkType.IPV6 ? 0x86DD
                        : etherTypeOfVersion(record, captured, 0);
                case LinkType.NULL, LinkType.LOOP ->
                {
                    linkHeader = Math.min(4, captured);
                    etherType = etherTypeOfVersion(record, captured, 4);
                }
                case LinkType.LINUX_SLL ->
                {
                    linkHeader = Math.min(16, captured);
                    etherType = captured >= 16 ? Frames.u16(record + 14) : 0;
                }
                case LinkType.LINUX_SLL2 ->
                {
                    linkHeader = Math.min(20, captured);
                    etherType = captured >= 2 ? Frames.u16(record) : 0;
                }
                default ->
                {
                }
            }
            linkTypes.merge(LinkType.name(linkType) + (etherType < 0 ? "" : "->eth"), 1L, Long::sum);
            final int length;
            if (etherType < 0)
            {
                Frames.copy(record, frame, captured);
                length = captured;
            }
            else
            {
                Frames.putI64(frame, JVS_MAC << 16 | PEER_MAC >>> 32);
                Frames.putI32(frame + 8, (int)PEER_MAC);
                Frames.putU16(frame + 12, etherType);
                Frames.copy(record + linkHeader, frame + 14, captured - linkHeader);
                length = 14 + captured - linkHeader;
            }
            enqueue(frame, length, 1, reader.records(), null);
        }

        private long frameAddress(final int i)
        {
            return base + (long)i * SLOT + GUARD + HEADROOM;
        }

        /** Adds the frame already written at its slot to the burst, guards around it. */
        private void enqueue(final long frame, final int length, final int mark, final long record, final Reply reply)
        {
            final int i = burst.count;
            final int capacity = Math.max(FRAME_SIZE, length);
            fill(frame - HEADROOM - GUARD, GUARD);
            fill(frame + capacity, GUARD);
            burst.add(frame, length, capacity, HEADROOM, nowNs);
            burst.firewallMark(i, mark);
            final byte[] bytes = read(frame, length);
            before[i] = Integrity.of(bytes);
            recordOf[i] = record;
            senderMacOf[i] = length >= 12 ? TestFrames.mac(bytes, 6) : -1;
            replyOf[i] = reply;
            inputOf[i] = bytes;
            final Ip ip = mark != 0 ? Ip.of(bytes) : null;
            if (ip != null && !ip.fragment() && (ip.protocol() == 6 || ip.protocol() == 17 || ip.protocol() == 132)
                && ip.l4() + 4 <= ip.end())
            {
                natFlows.computeIfAbsent(flowKey(ip.protocol(), ip.source(bytes), TestFrames.u16(bytes, ip.l4())),
                    key -> new java.util.TreeSet<>())
                    .add(Reply.address(ip.destination(bytes)) + "." + TestFrames.u16(bytes, ip.l4() + 2));
            }
            frames++;
        }

        private static int etherTypeOfVersion(final long record, final int captured, final int offset)
        {
            return captured > offset && Frames.u8(record + offset) >>> 4 == 6 ? 0x86DD : 0x0800;
        }

        private static void fill(final long address, final int length)
        {
            for (int j = 0; j < length; j++)
            {
                Frames.putU8(address + j, GUARD_BYTE);
            }
        }

        private static boolean intact(final long address, final int length)
        {
            for (int j = 0; j < length; j++)
            {
                if ((byte)Frames.u8(address + j) != GUARD_BYTE)
                {
                    return false;
                }
            }
            return true;
        }

        private static byte[] read(final long address, final int length)
        {
            final byte[] bytes = new byte[length];
            for (int j = 0; j < length; j++)
            {
                bytes[j] = (byte)Frames.u8(address + j);
            }
            return bytes;
        }

        /** Processes the burst, checks every frame, then sends the replies to its NAT'd frames as a burst. */
        private void flush()
        {
            final int count = burst.count;
            if (count == 0)
            {
                return;
            }
            final long[] originalAddress = new long[count];
            final int[] originalCapacity = new int[count];
            for (int i = 0; i < count; i++)
            {
                originalAddress[i] = burst.address(i);
                originalCapacity[i] = burst.capacity(i);
            }
            try
            {
                pipeline.process(burst, nowNs + 1_000);
            }
            catch (final Throwable e)
            {
                problems.add(String.format("%s: records %d..%d: process threw %s", fileName, recordOf[0],
                    recordOf[count - 1], e));
                burst.clear();
                return;
            }
            replyFrames.clear();
            replyExpectations.clear();
            for (int i = 0; i < count; i++)
            {
                check(i, originalAddress[i], originalCapacity[i]);
            }
            burst.clear();
            if (!replyFrames.isEmpty())
            {
                final List<byte[]> frames = List.copyOf(replyFrames);
                final List<Reply> expectations = List.copyOf(replyExpectations);
                for (int r = 0; r < frames.size(); r++)
                {
                    final long frame = frameAddress(r);
                    Frames.write(frames.get(r), frame);
                    enqueue(frame, frames.get(r).length, 0, expectations.get(r).record(), expectations.get(r));
                    replies++;
                }
                flush();
            }
        }

        private void check(final int i, final long originalAddress, final int originalCapacity)
        {
            final Reply reply = replyOf[i];
            final String where = fileName + " record " + recordOf[i] + (reply != null ? " (reply)" : "");
            final int verdict = burst.verdict(i);
            final int kind = Verdict.kind(verdict);
            if (kind < Verdict.TRANSMIT || kind > Verdict.DROP)
            {
                problems.add(where + ": verdict " + verdict);
                return;
            }
            verdicts[kind]++;
            final boolean inBounds = kind != Verdict.TRANSMIT || Verdict.port(verdict) == 0
                && burst.address(i) >= originalAddress - HEADROOM && burst.length(i) >= 14
                && burst.address(i) + burst.length(i) <= originalAddress + originalCapacity;
            final String method = kind == Verdict.TRANSMIT && inBounds
                ? methodOf(read(burst.address(i), 6), senderMacOf[i]) : "";
            if (fileName.equals(TRACE))
            {
                System.out.printf("%s: %d bytes out, %s %s%n", where, burst.length(i), Verdict.toString(verdict), method);
            }
            if (!intact(originalAddress - HEADROOM - GUARD, GUARD) || !intact(originalAddress + originalCapacity, GUARD))
            {
                problems.add(where + ": wrote outside the frame's headroom and capacity");
            }
            if (!inBounds)
            {
                problems.add(String.format("%s: transmitted on port %d, %d bytes at %+d from the frame",
                    where, Verdict.port(verdict), burst.length(i), burst.address(i) - originalAddress));
                return;
            }
            if (reply != null)
            {
                replyVerdicts.merge(Verdict.toString(verdict) + (method.isEmpty() ? "" : " " + method), 1L, Long::sum);
                if (kind != Verdict.TRANSMIT)
                {
                    problems.add(where + ": reply to a NAT'd packet not sent back: " + Verdict.toString(verdict));
                }
            }
            final String datagram = reply == null ? fragmentedDatagram(inputOf[i]) : null;
            if (datagram != null)
            {
                final boolean first = (TestFrames.u16(inputOf[i], Ip.of(inputOf[i]).l3() + 6) & 0x1FFF) == 0;
                if (first && (method.equals("nat") || method.equals("dr") || method.equals("tun")))
                {
                    forwardedFirstFragments.add(datagram);
                }
                else if (!first && forwardedFirstFragments.contains(datagram))
                {
                    laterFragmentsOfForwarded++;
                    if (kind == Verdict.DROP)
                    {
                        problems.add(where + ": later fragment of a datagram whose first fragment was forwarded: "
                            + Verdict.toString(verdict));
                    }
                }
            }
            if (kind != Verdict.TRANSMIT)
            {
                return;
            }
            final byte[] out = read(burst.address(i), burst.length(i));
            if (reply == null)
            {
                transmittedByMethod.merge(method, 1L, Long::sum);
            }
            final Integrity after = Integrity.of(out);
            outgoingL4.merge(after.l4().name().toLowerCase(), 1L, Long::sum);
            integrityChecked++;
            if (before[i].ip() == Sum.OK && after.ip() == Sum.BAD)
            {
                problems.add(where + " (" + method + "): IPv4 header checksum valid in, invalid out");
            }
            if ((before[i].l4() == Sum.OK || before[i].l4() == Sum.NONE) && after.l4() == Sum.BAD)
            {
                problems.add(where + " (" + method + "): upper-layer checksum " + before[i].l4() + " in, invalid out");
            }
            if (reply != null)
            {
                if (reply.restoredIn(out))
                {
                    repliesRestored++;
                    repliesAmbiguous += reply.exactIn(out) ? 0 : 1;
                }
                else
                {
                    problems.add(where + ": reply to a NAT'd packet not rewritten back to the virtual service: "
                        + reply + ", got " + describe(out));
                }
            }
            else if (method.equals("nat"))
            {
                makeReply(out, recordOf[i], inputOf[i]);
            }
        }

        /**
         * The reply a real server would send to a NAT'd frame: addresses and ports swapped (checksums stay
         * as valid as they were; SCTP's CRC is recomputed), TTL 64, from the server's MAC to jvs.
         */
        private void makeReply(final byte[] out, final long record, final byte[] input)
        {
            final Ip ip = Ip.of(out);
            final Ip request = Ip.of(input);
            if (ip == null || request == null || request.v6() != ip.v6() || ip.fragment()
                || (ip.protocol() != 6 && ip.protocol() != 17 && ip.protocol() != 132)
                || ip.l4() + (ip.protocol() == 17 ? 8 : ip.protocol() == 6 ? 20 : 12) > ip.end())
            {
                return;
            }
            final byte[] reply = out.clone();
            final int addressLength = ip.v6() ? 16 : 4;
            final int source = ip.l3() + (ip.v6() ? 8 : 12);
            final int destination = source + addressLength;
            final byte[] server = java.util.Arrays.copyOfRange(out, source + addressLength, destination + addressLength);
            final byte[] client = java.util.Arrays.copyOfRange(out, source, source + addressLength);
            System.arraycopy(client, 0, reply, destination, addressLength);
            System.arraycopy(server, 0, reply, source, addressLength);
            final int clientPort = TestFrames.u16(out, ip.l4());
            final int serverPort = TestFrames.u16(out, ip.l4() + 2);
            reply[ip.l4()] = (byte)(serverPort >>> 8);
            reply[ip.l4() + 1] = (byte)serverPort;
            reply[ip.l4() + 2] = (byte)(clientPort >>> 8);
            reply[ip.l4() + 3] = (byte)clientPort;
            if (ip.v6())
            {
                reply[ip.l3() + 7] = 64;
            }
            else
            {
                reply[ip.l3() + 8] = 64;
                reply[ip.l3() + 10] = 0;
                reply[ip.l3() + 11] = 0;
                final int sum = TestFrames.checksum(reply, ip.l3(), (reply[ip.l3()] & 0x0F) * 4, 0);
                reply[ip.l3() + 10] = (byte)(sum >>> 8);
                reply[ip.l3() + 11] = (byte)sum;
            }
            if (ip.protocol() == 132 && Integrity.sctp(out, ip.l4(), ip.end() - ip.l4()) == Sum.OK)
            {
                final CRC32C crc = new CRC32C();
                reply[ip.l4() + 8] = 0;
                reply[ip.l4() + 9] = 0;
                reply[ip.l4() + 10] = 0;
                reply[ip.l4() + 11] = 0;
                crc.update(reply, ip.l4(), ip.end() - ip.l4());
                ByteBuffer.wrap(reply, ip.l4() + 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt((int)crc.getValue());
            }
            final long serverMac = TestFrames.mac(out, 0);
            ByteBuffer.wrap(reply).putShort((short)(JVS_MAC >>> 32)).putInt((int)JVS_MAC)
                .putShort((short)(serverMac >>> 32)).putInt((int)serverMac);
            replyFrames.add(reply);
            final java.util.Set<String> virtualEndpoints = natFlows.get(flowKey(ip.protocol(), client, clientPort));
            if (virtualEndpoints == null || !virtualEndpoints.contains(Reply.address(request.destination(input)) + "."
                + TestFrames.u16(input, request.l4() + 2)))
            {
                problems.add(fileName + " record " + record + ": NAT'd as " + describe(out) + " from a request "
                    + describe(input) + " it was not");
                return;
            }
            replyExpectations.add(new Reply(record, client, clientPort, Reply.address(request.destination(input)) + "."
                + TestFrames.u16(input, request.l4() + 2), virtualEndpoints));
        }

        /** @return source, destination, protocol and identification of an IPv4 fragment, else null. */
        private static String fragmentedDatagram(final byte[] frame)
        {
            final Ip ip = Ip.of(frame);
            if (ip == null || ip.v6() || !ip.fragment())
            {
                return null;
            }
            return Reply.address(ip.source(frame)) + " " + Reply.address(ip.destination(frame)) + " " + ip.protocol()
                + " " + TestFrames.u16(frame, ip.l3() + 4);
        }

        private static String flowKey(final int protocol, final byte[] client, final int clientPort)
        {
            return protocol + " " + Reply.address(client) + "." + clientPort;
        }

        private static String describe(final byte[] out)
        {
            final Ip ip = Ip.of(out);
            return ip == null ? "no IP packet" : String.format("%s.%d > %s.%d to MAC %012x",
                Reply.address(ip.source(out)), TestFrames.u16(out, ip.l4()), Reply.address(ip.destination(out)),
                TestFrames.u16(out, ip.l4() + 2), TestFrames.mac(out, 0));
        }

        /** Which kind of server a transmitted frame went to, from its destination MAC, or back to its sender. */
        private String methodOf(final byte[] out, final long senderMac)
        {
            final long mac = TestFrames.mac(out, 0);
            final DataPlane plane = fixture.publisher.current();
            for (final Map.Entry<Integer, String> server : methodOfServer.entrySet())
            {
                if (plane.serverNextHopMac[server.getKey()] == mac)
                {
                    return server.getValue();
                }
            }
            return mac == senderMac ? "icmp-answer" : mac == TestFrames.ROUTER_MAC ? "gateway" : "unknown";
        }

        long dropsByReason()
        {
            long sum = 0;
            for (final DropReason reason : DropReason.values())
            {
                sum += pipeline.counters().dropped(reason);
            }
            return sum;
        }

        long serverConnections()
        {
            long sum = 0;
            for (final int slot : methodOfServer.keySet())
            {
                sum += pipeline.traffic().server(slot, TrafficStatsDescriptor.CONNECTIONS);
            }
            return sum;
        }

        String summary()
        {
            final WorkerCounters counters = pipeline.counters();
            final StringBuilder text = new StringBuilder();
            text.append(String.format("%d files: %d captures, %d refused at open (skipped: %s)%n",
                opened + refused.size(), opened, refused.size(), refused.keySet()));
            text.append(String.format("link types (records; ->eth: given an Ethernet header): %s%n", linkTypes));
            text.append(String.format("%d records + %d replies to NAT'd ones = %d frames: %d transmitted, %d passed,"
                + " %d dropped%n", records, replies, counters.frames(), counters.transmitted(), counters.passed(),
                counters.dropped()));
            final StringBuilder drops = new StringBuilder();
            java.util.Arrays.stream(DropReason.values())
                .filter(reason -> counters.dropped(reason) > 0)
                .sorted(Comparator.comparingLong((DropReason reason) -> counters.dropped(reason)).reversed())
                .forEach(reason -> drops.append(reason.label()).append('=').append(counters.dropped(reason)).append(' '));
            text.append(String.format("drops by reason (ICMP-answered ones included): %s%n", drops.toString().trim()));
            text.append(String.format("connections created %d (ended %d, open %d v4 + %d v6), fragments followed %d%n",
                counters.connections(), counters.connectionsEnded(), pipeline.connectionsV4().size(),
                pipeline.connectionsV6().size(), counters.fragmentsFollowed()));
            text.append(String.format("ICMP sent %d, rate-limited %d; later fragments of forwarded first fragments %d%n",
                counters.icmpSent(), counters.icmpRateLimited(), laterFragmentsOfForwarded));
            text.append(String.format("records transmitted by kind: %s; replies: %s, %d rewritten back to the virtual"
                + " service (%d of them as from another endpoint the client port sent to: ambiguous from the server)%n",
                transmittedByMethod, replyVerdicts, repliesRestored, repliesAmbiguous));
            text.append(String.format("upper-layer checksums of transmitted frames: %s%n", outgoingL4));
            final StringBuilder top = new StringBuilder();
            perFile.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed())
                .limit(5)
                .forEach(e -> top.append(String.format("%s (%d in: %d/%d/%d) ", e.getKey(), e.getValue()[0],
                    e.getValue()[1], e.getValue()[2], e.getValue()[3])));
            text.append(String.format("most transmitted (in: transmitted/passed/dropped): %s%n", top.toString().trim()));
            problems.stream().limit(50).forEach(problem -> text.append("  problem: ").append(problem).append('\n'));
            if (problems.size() > 50)
            {
                text.append("  ... ").append(problems.size() - 50).append(" more problems\n");
            }
            return text.toString();
        }
    }

    /** Where a frame's IP packet is (after any VLAN tags); IPv6 only with the upper layer right after its header. */
    record Ip(boolean v6, int l3, int l4, int protocol, int end, boolean fragment)
    {
        /** @return the packet, or null if it is not IP, is cut short, or is IPv6 with extension headers. */
        static Ip of(final byte[] frame)
        {
            if (frame.length < 14)
            {
                return null;
            }
            int offset = 12;
            int type = TestFrames.u16(frame, offset);
            for (int tags = 0; (type == 0x8100 || type == 0x88A8 || type == 0x9100) && tags < 3; tags++)
            {
                offset += 4;
                if (offset + 2 > frame.length)
                {
                    return null;
                }
                type = TestFrames.u16(frame, offset);
            }
            final int l3 = offset + 2;
            if (type == 0x0800 && l3 + 20 <= frame.length && (frame[l3] & 0xF0) == 0x40)
            {
                final int headerLength = (frame[l3] & 0x0F) * 4;
                final int total = TestFrames.u16(frame, l3 + 2);
                if (headerLength < 20 || total < headerLength || l3 + total > frame.length)
                {
                    return null;
                }
                return new Ip(false, l3, l3 + headerLength, frame[l3 + 9] & 0xFF, l3 + total,
                    (TestFrames.u16(frame, l3 + 6) & 0x3FFF) != 0);
            }
            if (type == 0x86DD && l3 + 40 <= frame.length && (frame[l3] & 0xF0) == 0x60)
            {
                final int payload = TestFrames.u16(frame, l3 + 4);
                final int next = frame[l3 + 6] & 0xFF;
                if (payload == 0 || l3 + 40 + payload > frame.length
                    || (next != 6 && next != 17 && next != 132 && next != 58))
                {
                    return null;
                }
                return new Ip(true, l3, l3 + 40, next, l3 + 40 + payload, false);
            }
            return null;
        }

        byte[] source(final byte[] frame)
        {
            final int at = l3 + (v6 ? 8 : 12);
            return java.util.Arrays.copyOfRange(frame, at, at + (v6 ? 16 : 4));
        }

        byte[] destination(final byte[] frame)
        {
            final int at = l3 + (v6 ? 24 : 16);
            return java.util.Arrays.copyOfRange(frame, at, at + (v6 ? 16 : 4));
        }
    }

    /** What the reply to a NAT'd frame must look like when jvs sends it on: from the virtual service to the client. */
    record Reply(long record, byte[] client, int clientPort, String virtualEndpoint, java.util.Set<String> virtualEndpoints)
    {
        boolean exactIn(final byte[] out)
        {
            final Ip ip = Ip.of(out);
            return ip != null && virtualEndpoint.equals(address(ip.source(out)) + "." + TestFrames.u16(out, ip.l4()));
        }

        boolean restoredIn(final byte[] out)
        {
            final Ip ip = Ip.of(out);
            return ip != null && TestFrames.mac(out, 0) == TestFrames.ROUTER_MAC
                && virtualEndpoints.contains(address(ip.source(out)) + "." + TestFrames.u16(out, ip.l4()))
                && java.util.Arrays.equals(ip.destination(out), client) && TestFrames.u16(out, ip.l4() + 2) == clientPort;
        }

        @Override
        public String toString()
        {
            return "expected one of " + virtualEndpoints + " > " + address(client) + "." + clientPort;
        }

        static String address(final byte[] bytes)
        {
            try
            {
                return java.net.InetAddress.getByAddress(bytes).getHostAddress();
            }
            catch (final java.net.UnknownHostException e)
            {
                return java.util.HexFormat.of().formatHex(bytes);
            }
        }
    }

    /** A checksum as found: valid, invalid, absent (UDP 0), or not checkable (truncated, fragment, other). */
    enum Sum
    {
        OK, BAD, NONE, UNKNOWN
    }

    /**
     * The checksums of a frame, by a plain reference sum: every IPv4 header on the way in (OK only if all
     * are), and the upper-layer checksum of the innermost packet (through one level of IP-in-IP).
     */
    record Integrity(Sum ip, Sum l4)
    {
        static Integrity of(final byte[] frame)
        {
            int offset = 12;
            if (frame.length < 14)
            {
                return new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
            }
            int type = TestFrames.u16(frame, offset);
            for (int tags = 0; (type == 0x8100 || type == 0x88A8 || type == 0x9100) && tags < 3; tags++)
            {
                offset += 4;
                if (offset + 2 > frame.length)
                {
                    return new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
                }
                type = TestFrames.u16(frame, offset);
            }
            offset += 2;
            return switch (type)
            {
                case 0x0800 -> ip(frame, offset, frame.length, 4, 1);
                case 0x86DD -> ip(frame, offset, frame.length, 6, 1);
                default -> new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
            };
        }

        private static Integrity ip(final byte[] frame, final int ip, final int end, final int version, final int depth)
        {
            final int protocol;
            final int l4;
            final int l4End;
            final long pseudo;
            final Sum header;
            if (version == 4)
            {
                if (ip + 20 > end || (frame[ip] & 0xF0) != 0x40)
                {
                    return new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
                }
                final int headerLength = (frame[ip] & 0x0F) * 4;
                if (headerLength < 20 || ip + headerLength > end)
                {
                    return new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
                }
                header = TestFrames.checksum(frame, ip, headerLength, 0) == 0 ? Sum.OK : Sum.BAD;
                final int total = TestFrames.u16(frame, ip + 2);
                if (total < headerLength || ip + total > end || (TestFrames.u16(frame, ip + 6) & 0x3FFF) != 0)
                {
                    return new Integrity(header, Sum.UNKNOWN);
                }
                protocol = frame[ip + 9] & 0xFF;
                l4 = ip + headerLength;
                l4End = ip + total;
                pseudo = TestFrames.sumWords(frame, ip + 12, 8) + protocol + (l4End - l4);
            }
            else
            {
                if (ip + 40 > end || (frame[ip] & 0xF0) != 0x60)
                {
                    return new Integrity(Sum.UNKNOWN, Sum.UNKNOWN);
                }
                header = Sum.UNKNOWN;
                final int payload = TestFrames.u16(frame, ip + 4);
                if (payload == 0 || ip + 40 + payload > end)
                {
                    return new Integrity(header, Sum.UNKNOWN);
                }
                protocol = frame[ip + 6] & 0xFF;
                l4 = ip + 40;
                l4End = l4 + payload;
                pseudo = TestFrames.sumWords(frame, ip + 8, 32) + protocol + payload;
            }
            final int length = l4End - l4;
            final Sum upper = switch (protocol)
            {
                case 6 -> length < 20 ? Sum.UNKNOWN : sum(TestFrames.checksum(frame, l4, length, pseudo));
                case 17 -> length < 8 ? Sum.UNKNOWN : version == 4 && TestFrames.u16(frame, l4 + 6) == 0 ? Sum.NONE
                    : sum(TestFrames.checksum(frame, l4, length, pseudo));
                case 1 -> version == 4 && length >= 8 ? sum(TestFrames.checksum(frame, l4, length, 0)) : Sum.UNKNOWN;
                case 58 -> version == 6 && length >= 8 ? sum(TestFrames.checksum(frame, l4, length, pseudo)) : Sum.UNKNOWN;
                case 132 -> length < 12 ? Sum.UNKNOWN : sctp(frame, l4, length);
                default -> Sum.UNKNOWN;
            };
            if (protocol == 4 || protocol == 41)
            {
                final Integrity inner = depth == 0 ? new Integrity(Sum.UNKNOWN, Sum.UNKNOWN)
                    : ip(frame, l4, l4End, protocol == 4 ? 4 : 6, depth - 1);
                final Sum ips = header == Sum.BAD || inner.ip() == Sum.BAD ? Sum.BAD
                    : header == Sum.OK || inner.ip() == Sum.OK ? Sum.OK : Sum.UNKNOWN;
                return new Integrity(ips, inner.l4());
            }
            return new Integrity(header, upper);
        }

        private static Sum sum(final int checksum)
        {
            return checksum == 0 ? Sum.OK : Sum.BAD;
        }

        private static Sum sctp(final byte[] frame, final int l4, final int length)
        {
            final CRC32C crc = new CRC32C();
            crc.update(frame, l4, 8);
            crc.update(new byte[4]);
            crc.update(frame, l4 + 12, length - 12);
            final int stored = ByteBuffer.wrap(frame, l4 + 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
            return (int)crc.getValue() == stored ? Sum.OK : Sum.BAD;
        }
    }
}
