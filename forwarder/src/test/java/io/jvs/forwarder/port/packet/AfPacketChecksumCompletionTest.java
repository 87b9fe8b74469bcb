package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * CSUMNOTREADY completion against the reference checksum, for TCP and UDP over IPv4 and IPv6, with and without
 * a VLAN tag, over random payloads of odd and even lengths; and what it must leave alone.
 */
class AfPacketChecksumCompletionTest
{
    private static final int TCP = 6;
    private static final int UDP = 17;

    @ParameterizedTest(name = "{0} over IPv{1}, vlan {2}")
    @CsvSource({"17,4,false", "6,4,false", "17,6,false", "6,6,false", "17,4,true", "6,6,true"})
    void shouldWriteTheChecksumTheReferenceComputes(final int protocol, final int ipVersion, final boolean vlan)
    {
        final Random random = new Random(protocol * 100 + ipVersion);
        for (int payload = 0; payload < 200; payload += 1 + random.nextInt(13))
        {
            final byte[] frame = frame(protocol, ipVersion, vlan, payload, random);
            final int ip = vlan ? 18 : 14;
            final int expected = TestPackets.referenceTransportChecksum(frame, ip);
            final int field = checksumField(frame, ip, protocol);
            // What an offloading sender leaves: the pseudo-header sum only.
            ByteBuffer.wrap(frame).putShort(field, (short)TestPackets.pseudoHeaderSum(frame, ip));

            final byte[] completed = completeInMemory(frame, true);

            assertThat(TestPackets.word(completed, field)).as("payload %d", payload).isEqualTo(expected);
            frame[field] = completed[field];
            frame[field + 1] = completed[field + 1];
            assertThat(completed).as("only the checksum field changes").isEqualTo(frame);
        }
    }

    @Test
    void shouldLeaveFramesItCannotCompleteUnchanged()
    {
        final Random random = new Random(7);
        final byte[] icmp = frame(UDP, 4, false, 20, random);
        icmp[14 + 9] = 1;
        completeInMemory(icmp, false);

        final byte[] experimental = TestPackets.experimental(1, 60);
        completeInMemory(experimental, false);

        final byte[] lying = frame(UDP, 4, false, 20, random);
        ByteBuffer.wrap(lying).putShort(14 + 2, (short)1000);
        completeInMemory(lying, false);

        final byte[] fragment = frame(TCP, 4, false, 40, random);
        ByteBuffer.wrap(fragment).putShort(14 + 6, (short)0x0010);
        completeInMemory(fragment, false);

        final byte[] extensionHeader = frame(UDP, 6, false, 20, random);
        extensionHeader[14 + 6] = 0;
        completeInMemory(extensionHeader, false);

        final byte[] shortTcp = frame(TCP, 6, false, 0, random);
        ByteBuffer.wrap(shortTcp).putShort(14 + 4, (short)12);
        completeInMemory(shortTcp, false);

        completeInMemory(new byte[10], false);
    }

    /** Runs the completion over a copy in native memory, checks its answer, returns the bytes after. */
    private static byte[] completeInMemory(final byte[] frame, final boolean expectCompleted)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment memory = arena.allocate(frame.length + 8L);
            MemorySegment.copy(frame, 0, memory, JAVA_BYTE, 0, frame.length);
            assertThat(ChecksumCompletion.complete(memory.address(), frame.length)).isEqualTo(expectCompleted);
            final byte[] after = memory.asSlice(0, frame.length).toArray(JAVA_BYTE);
            if (!expectCompleted)
            {
                assertThat(after).isEqualTo(frame);
            }
            return after;
        }
    }

    private static int checksumField(final byte[] frame, final int ip, final int protocol)
    {
        final int l4 = (frame[ip] & 0xF0) == 0x60 ? ip + 40 : ip + ((frame[ip] & 0xF) << 2);
        return l4 + (protocol == TCP ? 16 : 6);
    }

    private static byte[] frame(
        final int protocol, final int ipVersion, final boolean vlan, final int payload, final Random random)
    {
        final int l4Header = protocol == TCP ? 20 : 8;
        final int ipHeader = ipVersion == 6 ? 40 : 24;
        final int ip = vlan ? 18 : 14;
        final ByteBuffer frame = ByteBuffer.allocate(ip + ipHeader + l4Header + payload);
        final byte[] bytes = frame.array();
        random.nextBytes(bytes);
        frame.put(TestPackets.FORWARDER_MAC).put(TestPackets.GENERATOR_MAC);
        if (vlan)
        {
            frame.putShort((short)0x8100).putShort((short)42);
        }
        final int l4Length = l4Header + payload;
        if (ipVersion == 4)
        {
            // IHL 6: one word of options, so the header length is read, not assumed.
            frame.putShort((short)0x0800).put((byte)0x46).put((byte)0).putShort((short)(ipHeader + l4Length))
                .putShort((short)9).putShort((short)0x4000).put((byte)64).put((byte)protocol);
        }
        else
        {
            frame.putShort((short)0x86DD).putInt(0x6000_0000).putShort((short)l4Length).put((byte)protocol)
                .put((byte)64);
        }
        if (protocol == TCP)
        {
            bytes[ip + ipHeader + 12] = 0x50;
        }
        else
        {
            ByteBuffer.wrap(bytes).putShort(ip + ipHeader + 4, (short)l4Length);
        }
        return bytes;
    }
}
