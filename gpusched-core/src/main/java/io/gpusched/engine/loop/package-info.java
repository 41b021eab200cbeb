/**
 * The loop's machinery: its clock ({@code LoopClock}) and timers, the {@code Inbox} other threads post
 * to, how the loop waits on it ({@code LoopWait}: in real time, or on a {@code VirtualTime} that jumps to
 * what happens next), submission bursts, durability groups over the journal ({@code Durability}: one fsync per group,
 * then the held events and answers) and the event fan-out ({@code Reporter}), and the status board
 * file ({@code StatusBoardWriter}). Uses {@code spawn} for the run files a group may remove.
 */
package io.gpusched.engine.loop;
