package io.jvs.core.pipeline;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The table that sends later fragments after their first: keyed by both addresses, the protocol and the
 * identification; an entry lives {@link FragmentTable#LIFETIME_TICKS} ticks; a full set of four gives up
 * the entry that expires first, after any expired or free one.
 */
class FragmentTableTest
{
    private static final long V6_HIGH = 0x2001_0DB8_0000_0000L;

    private static void put(final FragmentTable table, final int identification, final int server, final int tick)
    {
        table.put(0, 0xC633_6407L, 0, 0x0A00_0064L, 17, identification, server, 0, FragmentTable.TOWARDS_SERVER, 0, 0,
            tick);
    }

    private static boolean has(final FragmentTable table, final int identification, final int tick)
    {
        return table.find(0, 0xC633_6407L, 0, 0x0A00_0064L, 17, identification, tick);
    }

    @Test
    void shouldFindAFragmentByEveryPartOfItsKey()
    {
        final FragmentTable table = new FragmentTable(64);
        table.put(V6_HIGH, 7, V6_HIGH + 1, 100, 17, 0xDEAD_BEEF, 5, 0, FragmentTable.TOWARDS_CLIENT, V6_HIGH + 9, 0x64,
            1000);
        assertThat(table.find(V6_HIGH, 7, V6_HIGH + 1, 100, 17, 0xDEAD_BEEF, 1000)).isTrue();
        assertThat(table.foundServer()).isEqualTo(5);
        assertThat(table.foundDirection()).isEqualTo(FragmentTable.TOWARDS_CLIENT);
        assertThat(table.foundVirtualHigh()).isEqualTo(V6_HIGH + 9);
        assertThat(table.foundVirtualLow()).isEqualTo(0x64);
        assertThat(table.find(V6_HIGH + 2, 7, V6_HIGH + 1, 100, 17, 0xDEAD_BEEF, 1000)).as("source high").isFalse();
        assertThat(table.find(V6_HIGH, 8, V6_HIGH + 1, 100, 17, 0xDEAD_BEEF, 1000)).as("source low").isFalse();
        assertThat(table.find(V6_HIGH, 7, V6_HIGH, 100, 17, 0xDEAD_BEEF, 1000)).as("destination high").isFalse();
        assertThat(table.find(V6_HIGH, 7, V6_HIGH + 1, 101, 17, 0xDEAD_BEEF, 1000)).as("destination low").isFalse();
        assertThat(table.find(V6_HIGH, 7, V6_HIGH + 1, 100, 6, 0xDEAD_BEEF, 1000)).as("protocol").isFalse();
        assertThat(table.find(V6_HIGH, 7, V6_HIGH + 1, 100, 17, 0xDEAD_BEEE, 1000)).as("identification").isFalse();
    }

    @Test
    void shouldKeepAnEntryForItsLifetimeExactly()
    {
        final FragmentTable table = new FragmentTable(16);
        put(table, 1, 3, 200);
        assertThat(has(table, 1, 200 + FragmentTable.LIFETIME_TICKS - 1)).isTrue();
        assertThat(has(table, 1, 200 + FragmentTable.LIFETIME_TICKS)).isFalse();
        // Across the wrap of the tick counter too.
        put(table, 2, 3, Integer.MAX_VALUE - 10);
        assertThat(has(table, 2, Integer.MAX_VALUE - 10 + FragmentTable.LIFETIME_TICKS - 1)).isTrue();
        assertThat(has(table, 2, Integer.MAX_VALUE - 10 + FragmentTable.LIFETIME_TICKS)).isFalse();
    }

    @Test
    void shouldGiveUpTheEntryThatExpiresFirstWhenASetIsFull()
    {
        // One set: every fragment competes for the same four ways.
        final FragmentTable table = new FragmentTable(1);
        put(table, 1, 1, 13);
        put(table, 2, 2, 10);
        put(table, 3, 3, 12);
        put(table, 4, 4, 11);
        put(table, 5, 5, 20);
        assertThat(has(table, 2, 20)).as("expires first").isFalse();
        for (final int kept : new int[] {1, 3, 4, 5})
        {
            assertThat(has(table, kept, 20)).as("fragment %d", kept).isTrue();
            assertThat(table.foundServer()).isEqualTo(kept);
        }
        put(table, 6, 6, 21);
        assertThat(has(table, 4, 21)).isFalse();
        assertThat(has(table, 6, 21)).isTrue();
    }

    @Test
    void shouldReuseAnExpiredWayBeforeEvictingALiveOne()
    {
        final FragmentTable table = new FragmentTable(1);
        put(table, 1, 1, 0);
        put(table, 2, 2, 400);
        put(table, 3, 3, 401);
        put(table, 4, 4, 402);
        // At 500 the first has expired: its way goes to the fifth, the others stay.
        put(table, 5, 5, 500);
        for (final int kept : new int[] {2, 3, 4, 5})
        {
            assertThat(has(table, kept, 500)).as("fragment %d", kept).isTrue();
        }
    }

    @Test
    void shouldUpdateAFragmentInPlaceWhenPutAgain()
    {
        final FragmentTable table = new FragmentTable(1);
        for (int id = 1; id <= 4; id++)
        {
            put(table, id, id, id);
        }
        put(table, 3, 9, 50);
        assertThat(has(table, 3, 50)).isTrue();
        assertThat(table.foundServer()).isEqualTo(9);
        for (final int kept : new int[] {1, 2, 4})
        {
            assertThat(has(table, kept, 50)).as("fragment %d", kept).isTrue();
        }
        // Its lifetime starts again.
        assertThat(has(table, 3, 50 + FragmentTable.LIFETIME_TICKS - 1)).isTrue();
    }

    @Test
    void shouldSpreadFragmentsOverTheSets()
    {
        // 64 fragments (by identification, by source, by destination) in 1024 sets of four: none pushed out.
        final FragmentTable table = new FragmentTable(1024);
        for (int i = 0; i < 64; i++)
        {
            table.put(0, 0xC633_6400L + i % 8, 0, 0x0A00_0064L + i / 8 % 4, 17, i, i + 1, 0,
                FragmentTable.TOWARDS_SERVER, 0, 0, 0);
        }
        for (int i = 0; i < 64; i++)
        {
            assertThat(table.find(0, 0xC633_6400L + i % 8, 0, 0x0A00_0064L + i / 8 % 4, 17, i, 1))
                .as("fragment %d", i).isTrue();
            assertThat(table.foundServer()).isEqualTo(i + 1);
        }
    }

    @Test
    void shouldFindNothingInAnEmptyTableWhateverTheKey()
    {
        final FragmentTable table = new FragmentTable(4);
        assertThat(table.find(0, 0, 0, 0, 0, 0, 0)).isFalse();
        assertThat(table.find(0, 0, 0, 0, 0, 0, -100)).isFalse();
        assertThat(table.find(0, 0xC633_6407L, 0, 0x0A00_0064L, 17, 1, 0)).isFalse();
    }

    @Test
    void shouldRefuseASetCountThatIsNotAPowerOfTwo()
    {
        assertThatIllegalArgumentException().isThrownBy(() -> new FragmentTable(12))
            .withMessage("fragment table sets must be a power of two: 12");
        assertThatIllegalArgumentException().isThrownBy(() -> new FragmentTable(0))
            .withMessage("fragment table sets must be a power of two: 0");
    }
}
