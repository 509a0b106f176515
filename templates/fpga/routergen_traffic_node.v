// routergen_traffic_node: the traffic generator and checker of one node of
// the bring-up network, on its network interface's AXI4-Stream ports
// (docs/network.md, "Endpoints").
//
// Generator (an AXI4-Stream master into the node's s_axis port): a 16-bit
// LFSR decides each idle cycle whether to start a transfer (one chance in
// eight), its destination (any of the N nodes, this one included) and its
// length (1 to 4 beats). TDEST is the destination's node id; TVALID, TDATA
// and TLAST hold until TREADY takes the beat (AXI4-Stream).
//
// Beats: beat 0 is {sequence, source, destination, beats - 1} (node
// indices of IB bits each, the sequence number in the bits above); beat
// i > 0 is a word computed from (sequence, source, destination, i), which
// the checker recomputes. Sequence numbers count per destination, so that
// the destination sees a lost, repeated or overtaken transfer.
//
// Checker (an AXI4-Stream slave of the node's m_axis port, TREADY low one
// cycle in eight): on every beat TDEST must be this node and TID a node
// (the same on every beat of a transfer); beat 0 must name TID's node as
// source and this node as destination and carry the next sequence number
// from that source; each later beat its word; TLAST on the last beat only.
// Every beat that breaks a rule counts one error; every transfer that ends
// with TLAST counts one packet received.
//
// CORRUPT (tests only): 1 flips the top bit of this node's sixth beat
// after a beat 0; 2 skips a sequence number after its fifth transfer (as
// if one were lost). Either way the destination must count one error.
module routergen_traffic_node #(
    parameter integer W = 16,  // TDATA bits
    parameter integer NB = 2,  // bits of a node id (TDEST, TID)
    parameter integer IB = 2,  // bits of a node index; N = 2^IB nodes
    parameter integer ME = 0,  // this node's index
    parameter [(NB << IB) - 1:0] IDS = 0,  // node k's id at [k NB +: NB]
    parameter [15:0] SEED = 16'hACE1,
    parameter integer CORRUPT = 0
) (
    input wire clk,
    input wire rst,
    // Into the network (the node's AXI4-Stream slave).
    output wire [W-1:0] s_axis_tdata,
    output wire s_axis_tvalid,
    input wire s_axis_tready,
    output wire s_axis_tlast,
    output wire [NB-1:0] s_axis_tdest,
    // Out of the network (the node's AXI4-Stream master).
    input wire [W-1:0] m_axis_tdata,
    input wire m_axis_tvalid,
    output wire m_axis_tready,
    input wire m_axis_tlast,
    input wire [NB-1:0] m_axis_tdest,
    input wire [NB-1:0] m_axis_tid,
    output reg [31:0] sent,
    output reg [31:0] received,
    output reg [31:0] errors
);
    localparam integer N = 1 << IB;  // nodes
    localparam integer SEQ = W - 2 - 2 * IB;  // sequence number bits
    localparam [IB-1:0] MY = ME[IB-1:0];
    localparam [NB-1:0] MY_ID = IDS[ME * NB +: NB];

    function [W-1:0] first_word(input [SEQ-1:0] q, input [IB-1:0] s, input [IB-1:0] d,
                                input [1:0] last);
        first_word = {q, s, d, last};
    endfunction

    function [W-1:0] body_word(input [SEQ-1:0] q, input [IB-1:0] s, input [IB-1:0] d,
                               input [1:0] i);
        body_word = {q, s, d, i} ^ {(W / 2){2'b01}};
    endfunction

    reg [15:0] lfsr;
    always @(posedge clk) begin
        if (rst) lfsr <= SEED;
        else lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
    end

    // ---- generator ----
    reg active;  // a transfer is offered
    reg [1:0] beat;  // the beat offered
    reg [1:0] last;  // its last beat
    reg [IB-1:0] dest;  // its destination's index
    reg [SEQ-1:0] seq [0:N-1];  // per destination: the next sequence number
    reg [7:0] bodies;  // beats after a beat 0 sent, to 255
    integer k;  // the generator's reset loop

    wire taken = active && s_axis_tready;
    // The step to a destination's next sequence number: 2 once with CORRUPT = 2.
    wire skip = CORRUPT == 2 && sent == 32'd4;
    wire [SEQ-1:0] step = {{(SEQ - 2){1'b0}}, skip, !skip};
    wire [W-1:0] flip = (CORRUPT == 1 && bodies == 8'd5) ? {1'b1, {(W - 1){1'b0}}} : {W{1'b0}};
    assign s_axis_tvalid = active;
    assign s_axis_tlast = beat == last;
    assign s_axis_tdest = IDS[dest * NB +: NB];
    assign s_axis_tdata = beat == 2'd0 ? first_word(seq[dest], MY, dest, last)
                                       : body_word(seq[dest], MY, dest, beat) ^ flip;

    always @(posedge clk) begin
        if (rst) begin
            active <= 1'b0;
            beat <= 2'd0;
            last <= 2'd0;
            dest <= {IB{1'b0}};
            for (k = 0; k < N; k = k + 1) seq[k] <= {SEQ{1'b0}};
            bodies <= 8'd0;
            sent <= 32'd0;
        end else if (!active) begin
            if (lfsr[2:0] == 3'd0) begin
                active <= 1'b1;
                beat <= 2'd0;
                last <= lfsr[4:3];
                dest <= lfsr[5 +: IB];
            end
        end else if (taken) begin
            beat <= beat + 2'd1;
            // Counts to 255 and stays: CORRUPT hits one beat only.
            if (beat != 2'd0 && bodies != 8'hFF) bodies <= bodies + 8'd1;
            if (beat == last) begin
                active <= 1'b0;
                seq[dest] <= seq[dest] + step;
                sent <= sent + 32'd1;
            end
        end
    end

    // ---- checker ----
    // The index of the node whose id is TID, and whether there is one.
    reg from_found;
    reg [IB-1:0] from_index;
    integer j;
    always @* begin
        from_found = 1'b0;
        from_index = {IB{1'b0}};
        for (j = 0; j < N; j = j + 1) begin
            if (IDS[j * NB +: NB] == m_axis_tid) begin
                from_found = 1'b1;
                from_index = j[IB-1:0];
            end
        end
    end

    assign m_axis_tready = lfsr[9:7] != 3'd7;
    wire arrives = m_axis_tvalid && m_axis_tready;

    reg in_transfer;  // beat 0 of a transfer arrived, not its TLAST
    reg [1:0] got;  // the beat expected next
    reg [1:0] got_last;  // the transfer's last beat
    reg [IB-1:0] from;  // its source
    reg [SEQ-1:0] got_seq;  // its sequence number
    reg [SEQ-1:0] want [0:N-1];  // per source: the sequence number expected next
    integer m;  // the checker's reset loop

    wire [1:0] head_last = m_axis_tdata[1:0];
    wire [SEQ-1:0] head_seq = m_axis_tdata[W-1 -: SEQ];
    wire head_bad = !from_found || m_axis_tdest != MY_ID
        || m_axis_tdata != first_word(want[from_index], from_index, MY, head_last)
        || m_axis_tlast != (head_last == 2'd0);
    wire body_bad = m_axis_tdest != MY_ID || m_axis_tid != IDS[from * NB +: NB]
        || m_axis_tdata != body_word(got_seq, from, MY, got)
        || m_axis_tlast != (got == got_last);

    always @(posedge clk) begin
        if (rst) begin
            in_transfer <= 1'b0;
            got <= 2'd0;
            got_last <= 2'd0;
            from <= {IB{1'b0}};
            got_seq <= {SEQ{1'b0}};
            for (m = 0; m < N; m = m + 1) want[m] <= {SEQ{1'b0}};
            received <= 32'd0;
            errors <= 32'd0;
        end else if (arrives) begin
            if (!in_transfer) begin
                if (head_bad) errors <= errors + 32'd1;
                in_transfer <= !m_axis_tlast;
                got <= 2'd1;
                got_last <= head_last;
                from <= from_index;
                got_seq <= head_seq;
                // Expect the one after this: a lost transfer counts once.
                want[from_index] <= head_seq + 1'b1;
            end else begin
                if (body_bad) errors <= errors + 32'd1;
                got <= got + 2'd1;
                if (m_axis_tlast) in_transfer <= 1'b0;
            end
            if (m_axis_tlast) received <= received + 32'd1;
        end
    end
endmodule
