/**
 * The loop's machinery: its clock ({@code LoopClock}) and timers, the {@code Inbox} other threads post
 * to, submission bursts, durability groups over the journal ({@code Durability}: one fsync per group,
 * then the held events and answers) and the event fan-out ({@code Reporter}), and the status board
 * file ({@code StatusBoardWriter}). Uses {@code spawn} for the run files a group may remove.
 */
package io.gpusched.engine.loop;
