package io.jvs.core.packet;

import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The burst's records: every field keeps what it is given over its whole range, no field of one frame's record
 * reaches into another field or another frame's record, each reads the same at the record's address, and an index
 * outside the burst throws.
 */
class ParsedBurstTest
{
    private static final int CAPACITY = 5;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldKeepEveryFieldOfEveryRecordApart(final long seed)
    {
        final ParsedBurst burst = new ParsedBurst(CAPACITY);
        final SplittableRandom random = new SplittableRandom(seed);
        final Fields[] written = new Fields[CAPACITY];
        for (int round = 0; round < 200; round++)
        {
            // Each round rewrites the records in a random order, so a field that spilled into a neighbour would be
            // seen whichever was written last.
            for (int n = 0; n < CAPACITY; n++)
            {
                final int i = random.nextInt(CAPACITY);
                written[i] = Fields.random(random);
                written[i].writeTo(burst, i);
            }
            for (int i = 0; i < CAPACITY; i++)
            {
                if (written[i] != null)
                {
                    assertThat(Fields.readFrom(burst, i)).as("record %d, round %d", i, round).isEqualTo(written[i]);
                    assertThat(Fields.readAt(burst.record(i), written[i].fragmentId()))
                        .as("record %d's address, round %d", i, round).isEqualTo(written[i]);
                }
            }
        }
    }

    @Test
    void shouldKeepEachFieldsLargestValue()
    {
        final ParsedBurst burst = new ParsedBurst(1);
        final Fields largest = new Fields(ParsedBurst.KIND_ARP, 26, 0x7FFF_FFFF, 0x7FFF_FFFF, 0xFF, -1L, -1L, -1L, -1L,
            0xFFFF, 0xFFFF, 0xFF, 0xFF, ParsedBurst.FRAGMENT_LATER, -1, true);
        largest.writeTo(burst, 0);
        assertThat(Fields.readFrom(burst, 0)).isEqualTo(largest);
    }

    @Test
    void shouldGiveTheUpperLayersLengthFromItsOffsetToTheEndOfThePacket()
    {
        final ParsedBurst burst = new ParsedBurst(1);
        burst.l4Offset(0, 34);
        burst.ipEnd(0, 74);
        assertThat(burst.l4Length(0)).isEqualTo(40);
        burst.ipEnd(0, 34 + 65_535);
        assertThat(burst.l4Length(0)).isEqualTo(65_535);
    }

    @Test
    void shouldRefuseAnIndexOutsideTheBurst()
    {
        final ParsedBurst burst = new ParsedBurst(CAPACITY);
        assertThatThrownBy(() -> burst.kind(CAPACITY)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.record(CAPACITY)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.record(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.sourceLow(-1, 7)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.destinationPort(Integer.MAX_VALUE, 80))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }

    private record Fields(int kind, int l3Offset, int l4Offset, int ipEnd, int protocol, long sourceHigh,
        long sourceLow, long destinationHigh, long destinationLow, int sourcePort, int destinationPort, int tcpFlags,
        int ttl, int fragment, int fragmentId, boolean hasPorts)
    {
        static Fields random(final SplittableRandom random)
        {
            final int l4Offset = random.nextInt(1 << 20);
            return new Fields(random.nextInt(9), random.nextInt(27), l4Offset, l4Offset + random.nextInt(1 << 17),
                random.nextInt(256), random.nextLong(), random.nextLong(), random.nextLong(), random.nextLong(),
                random.nextInt(1 << 16), random.nextInt(1 << 16), random.nextInt(256), random.nextInt(256),
                random.nextInt(3), random.nextInt(), random.nextBoolean());
        }

        void writeTo(final ParsedBurst burst, final int i)
        {
            burst.kind(i, kind);
            burst.l3Offset(i, l3Offset);
            burst.l4Offset(i, l4Offset);
            burst.ipEnd(i, ipEnd);
            burst.protocol(i, protocol);
            burst.sourceHigh(i, sourceHigh);
            burst.sourceLow(i, sourceLow);
            burst.destinationHigh(i, destinationHigh);
            burst.destinationLow(i, destinationLow);
            burst.sourcePort(i, sourcePort);
            burst.destinationPort(i, destinationPort);
            burst.tcpFlags(i, tcpFlags);
            burst.ttl(i, ttl);
            burst.fragment(i, fragment);
            burst.fragmentId(i, fragmentId);
            burst.hasPorts(i, hasPorts);
        }

        static Fields readFrom(final ParsedBurst burst, final int i)
        {
            return new Fields(burst.kind(i), burst.l3Offset(i), burst.l4Offset(i), burst.ipEnd(i), burst.protocol(i),
                burst.sourceHigh(i), burst.sourceLow(i), burst.destinationHigh(i), burst.destinationLow(i),
                burst.sourcePort(i), burst.destinationPort(i), burst.tcpFlags(i), burst.ttl(i), burst.fragment(i),
                burst.fragmentId(i), burst.hasPorts(i));
        }

        /** The fields read at a record's address, but for the fragment id, which has no such accessor. */
        static Fields readAt(final long record, final int fragmentId)
        {
            return new Fields(ParsedBurst.kindAt(record), ParsedBurst.l3OffsetAt(record),
                ParsedBurst.l4OffsetAt(record), ParsedBurst.ipEndAt(record), ParsedBurst.protocolAt(record),
                ParsedBurst.sourceHighAt(record), ParsedBurst.sourceLowAt(record), ParsedBurst.destinationHighAt(record),
                ParsedBurst.destinationLowAt(record), ParsedBurst.sourcePortAt(record),
                ParsedBurst.destinationPortAt(record), ParsedBurst.tcpFlagsAt(record), ParsedBurst.ttlAt(record),
                ParsedBurst.fragmentAt(record), fragmentId, ParsedBurst.hasPortsAt(record));
        }
    }
}
