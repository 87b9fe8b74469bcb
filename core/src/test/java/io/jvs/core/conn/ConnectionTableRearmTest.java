package io.jvs.core.conn;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConnectionTable#rearm} is the pipeline's store-only timer re-arm: it does what
 * {@link ConnectionTable#expiresTick(int, int)} does when the timer moves later, and refuses, changing nothing, when
 * it would move earlier in a table whose sweep keeps per-block bounds.
 */
class ConnectionTableRearmTest
{
    private static final int UDP = 17;

    private static int insert(final ConnectionTable table, final long client)
    {
        assertThat(table.lookupForward(UDP, 0, client, 53, 0, 1, 53)).isEqualTo(ConnectionTable.NOT_FOUND);
        return table.insert(UDP, 0, client, 53, 0, 1, 53, 10);
    }

    @Test
    void shouldRearmLaterAndRefuseEarlierWhenBlocksAreBounded()
    {
        final ConnectionTable table = new ConnectionTable(false, 1024, (t, s, e) -> { });
        table.skipIdleBlocks();
        final int slot = insert(table, 7);
        table.expiresTick(slot, 500);

        assertThat(table.rearm(slot, 499)).isFalse();
        assertThat(table.expiresTick(slot)).isEqualTo(500);
        assertThat(table.rearm(slot, 500)).isTrue();
        assertThat(table.rearm(slot, 900)).isTrue();
        assertThat(table.expiresTick(slot)).isEqualTo(900);
    }

    @Test
    void shouldRearmEarlierToWhenNoBlockBoundIsKept()
    {
        final ConnectionTable table = new ConnectionTable(false, 1024, (t, s, e) -> { });
        final int slot = insert(table, 7);
        table.expiresTick(slot, 500);

        assertThat(table.rearm(slot, 100)).isTrue();
        assertThat(table.expiresTick(slot)).isEqualTo(100);
    }
}
