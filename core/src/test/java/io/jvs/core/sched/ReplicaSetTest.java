package io.jvs.core.sched;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packed lblcr replica set at its edges: empty, one member, full (four), the largest identifier, and
 * erasing from each position.
 */
class ReplicaSetTest
{
    private static long set(final int... newestFirst)
    {
        long set = 0;
        for (int i = newestFirst.length - 1; i >= 0; i--)
        {
            set = ReplicaSet.insert(set, newestFirst[i]);
        }
        return set;
    }

    private static String lanes(final long set)
    {
        final StringBuilder text = new StringBuilder();
        for (int lane = 0; lane < ReplicaSet.CAPACITY; lane++)
        {
            text.append(lane == 0 ? "" : " ").append(ReplicaSet.member(set, lane));
        }
        return text.toString();
    }

    @Test
    void shouldHoldOneMember()
    {
        final long one = ReplicaSet.of(0xFFFF);
        assertThat(lanes(one)).isEqualTo("65535 0 0 0");
        assertThat(ReplicaSet.size(one)).isEqualTo(1);
        assertThat(ReplicaSet.hasSeveral(one)).isFalse();
        assertThat(ReplicaSet.contains(one, 0xFFFF)).isTrue();
        assertThat(ReplicaSet.contains(one, 1)).isFalse();
        assertThat(lanes(ReplicaSet.of(7))).isEqualTo("7 0 0 0");
    }

    @Test
    void shouldHaveNoMemberWhenEmpty()
    {
        assertThat(ReplicaSet.size(0)).isZero();
        assertThat(ReplicaSet.hasSeveral(0)).isFalse();
        assertThat(ReplicaSet.contains(0, 1)).isFalse();
    }

    @Test
    void shouldPutTheNewestMemberFirstAndIgnoreOneAlreadyIn()
    {
        final long two = ReplicaSet.insert(ReplicaSet.of(3), 9);
        assertThat(lanes(two)).isEqualTo("9 3 0 0");
        assertThat(ReplicaSet.size(two)).isEqualTo(2);
        assertThat(ReplicaSet.hasSeveral(two)).isTrue();
        assertThat(ReplicaSet.insert(two, 3)).isEqualTo(two);
        assertThat(ReplicaSet.insert(two, 9)).isEqualTo(two);
    }

    @Test
    void shouldHoldFourMembersAndDropTheOldestForAFifth()
    {
        final long full = set(0xFFFF, 3, 2, 1);
        assertThat(lanes(full)).isEqualTo("65535 3 2 1");
        assertThat(ReplicaSet.size(full)).isEqualTo(4);
        assertThat(ReplicaSet.hasSeveral(full)).isTrue();
        for (final int member : new int[] {1, 2, 3, 0xFFFF})
        {
            assertThat(ReplicaSet.contains(full, member)).as("member %d", member).isTrue();
        }
        assertThat(ReplicaSet.contains(full, 4)).isFalse();
        assertThat(lanes(ReplicaSet.insert(full, 5))).isEqualTo("5 65535 3 2");
    }

    @Test
    void shouldEraseFromEachPositionMovingTheLaterMembersUp()
    {
        final long full = set(4, 3, 2, 1);
        assertThat(lanes(ReplicaSet.erase(full, 4))).isEqualTo("3 2 1 0");
        assertThat(lanes(ReplicaSet.erase(full, 3))).isEqualTo("4 2 1 0");
        assertThat(lanes(ReplicaSet.erase(full, 2))).isEqualTo("4 3 1 0");
        assertThat(lanes(ReplicaSet.erase(full, 1))).isEqualTo("4 3 2 0");
        assertThat(ReplicaSet.erase(full, 9)).isEqualTo(full);
        assertThat(lanes(ReplicaSet.erase(set(0xFFFF, 0xFFFE), 0xFFFF))).isEqualTo("65534 0 0 0");
        assertThat(ReplicaSet.erase(ReplicaSet.of(5), 5)).isZero();
    }
}
