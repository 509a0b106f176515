// routergen_node: the traffic generator and checker of one node of the
// bring-up mesh, on the router's local port (port 0).
//
// Generator: a 16-bit LFSR decides each cycle whether to start a packet
// (one chance in eight), its destination (any of the four nodes) and its
// length (a head and 0 to 3 body flits). Packets are injected on VC 0 and
// only with a credit for the router's input buffer (D credits after reset,
// one spent per flit, one regained per credit pulse).
//
// Head flit: bits [2F-1:0] the routing field (per dimension the signed
// offset to the destination, or its coordinate with absolute addressing);
// [2F+1:2F] destination node, [2F+3:2F+2] source node, [2F+5:2F+4] number
// of body flits, and the packet's sequence number above. Body flit i holds
// a word computed from (sequence, source, destination, i), which the
// checker recomputes.
//
// Checker, per VC of the local output: a head must not arrive inside a
// packet, its routing field must say "arrived" (zero offsets, or this
// node's coordinates) and its destination must be this node; body flits
// must arrive inside a packet, in order, with the expected word, and the
// tail flag exactly on the last one. A flit that breaks any rule counts one
// error; a tail that ends a packet counts one packet received. Every
// ejected flit returns a credit one cycle later.
//
// CORRUPT (tests only): flips the top bit of this node's sixth body flit,
// which the destination's checker must count as an error.
module routergen_node #(
    parameter W = 16,
    parameter V = 1,
    parameter VB = 1,
    parameter D = 4,
    parameter F = 2,
    parameter ABSOLUTE = 0,
    parameter X = 0,
    parameter Y = 0,
    parameter [15:0] SEED = 16'hACE1,
    parameter CORRUPT = 0
) (
    input wire clk,
    input wire rst,
    output reg [W-1:0] inj_data,
    output reg inj_valid,
    output reg inj_head,
    output reg inj_tail,
    output wire [VB-1:0] inj_vc,
    input wire [V-1:0] inj_credit,
    input wire [W-1:0] ej_data,
    input wire ej_valid,
    input wire ej_head,
    input wire ej_tail,
    input wire [VB-1:0] ej_vc,
    output reg [V-1:0] ej_credit,
    output reg [31:0] sent,
    output reg [31:0] received,
    output reg [31:0] errors
);
    localparam R = 2 * F;          // routing field bits
    localparam SEQ = W - R - 6;    // sequence number bits
    localparam [1:0] ME = Y * 2 + X;

    // Body flit i of packet (q, s, d).
    function [W-1:0] body_word(input [SEQ-1:0] q, input [1:0] s, input [1:0] d,
                               input [1:0] i);
        body_word = {q, s, d, i, {F{i}}} ^ {(W / 2){2'b01}};
    endfunction

    // The routing field toward node d: per dimension the offset in F-bit
    // two's complement, or the coordinate with absolute addressing;
    // dimension 0 (x) in the low field.
    function [R-1:0] route(input [1:0] d);
        integer dx, dy;
        // Waiver UNUSEDSIGNAL: only the low 2F bits of the packed integer
        // are the field.
        /* verilator lint_off UNUSEDSIGNAL */
        integer packed_field;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            dx = ABSOLUTE != 0 ? {31'd0, d[0]} : {31'd0, d[0]} - X;
            dy = ABSOLUTE != 0 ? {31'd0, d[1]} : {31'd0, d[1]} - Y;
            packed_field = ((dy & ((1 << F) - 1)) << F) | (dx & ((1 << F) - 1));
            route = packed_field[R-1:0];
        end
    endfunction

    localparam integer ARRIVED_INT = ABSOLUTE != 0 ? (Y << F) | X : 0;
    localparam [R-1:0] ARRIVED = ARRIVED_INT[R-1:0];
    localparam [8:0] CREDITS = D;

    assign inj_vc = {VB{1'b0}};

    // ---- generator ----
    reg [15:0] lfsr;
    reg [8:0] credits;
    reg in_packet;
    reg [1:0] g_dst;
    reg [1:0] g_len;
    reg [1:0] g_idx;
    reg [SEQ-1:0] g_seq;
    reg [7:0] bodies;
    wire can_send = credits != 9'd0;
    wire start = ~in_packet & can_send & (lfsr[2:0] == 3'd0);
    wire send = start | (in_packet & can_send);

    always @(posedge clk) begin
        if (rst) begin
            lfsr <= SEED;
            credits <= CREDITS;
            in_packet <= 1'b0;
            g_seq <= {SEQ{1'b0}};
            g_idx <= 2'd0;
            g_dst <= 2'd0;
            g_len <= 2'd0;
            bodies <= 8'd0;
            inj_valid <= 1'b0;
            inj_head <= 1'b0;
            inj_tail <= 1'b0;
            inj_data <= {W{1'b0}};
            sent <= 32'd0;
        end else begin
            lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
            credits <= credits - {8'd0, send} + {8'd0, inj_credit[0]};
            inj_valid <= send;
            inj_head <= start;
            inj_tail <= send & (start ? lfsr[6:5] == 2'd0 : g_idx == g_len);
            if (start) begin
                inj_data <= {g_seq, lfsr[6:5], ME, lfsr[4:3], route(lfsr[4:3])};
                g_dst <= lfsr[4:3];
                g_len <= lfsr[6:5];
                g_idx <= 2'd1;
                in_packet <= lfsr[6:5] != 2'd0;
                if (lfsr[6:5] == 2'd0) begin
                    g_seq <= g_seq + 1'b1;
                    sent <= sent + 32'd1;
                end
            end else if (send) begin
                inj_data <= body_word(g_seq, ME, g_dst, g_idx)
                    ^ ((CORRUPT != 0 && bodies == 8'd5) ? {1'b1, {(W-1){1'b0}}} : {W{1'b0}});
                // Counts to 255 and stays: CORRUPT hits one flit only.
                if (bodies != 8'hFF) bodies <= bodies + 8'd1;
                g_idx <= g_idx + 2'd1;
                if (g_idx == g_len) begin
                    in_packet <= 1'b0;
                    g_seq <= g_seq + 1'b1;
                    sent <= sent + 32'd1;
                end
            end
        end
    end

    // ---- checker, one packet state per VC ----
    reg c_active [0:V-1];
    reg [1:0] c_src [0:V-1];
    reg [1:0] c_len [0:V-1];
    reg [1:0] c_idx [0:V-1];
    reg [SEQ-1:0] c_seq [0:V-1];
    integer v;

    wire [R-1:0] h_route = ej_data[R-1:0];
    wire [1:0] h_dst = ej_data[R+1:R];
    wire [1:0] h_src = ej_data[R+3:R+2];
    wire [1:0] h_len = ej_data[R+5:R+4];
    wire [SEQ-1:0] h_seq = ej_data[W-1:R+6];

    always @(posedge clk) begin
        if (rst) begin
            for (v = 0; v < V; v = v + 1) begin
                c_active[v] <= 1'b0;
                c_src[v] <= 2'd0;
                c_len[v] <= 2'd0;
                c_idx[v] <= 2'd0;
                c_seq[v] <= {SEQ{1'b0}};
            end
            ej_credit <= {V{1'b0}};
            received <= 32'd0;
            errors <= 32'd0;
        end else begin
            ej_credit <= {V{1'b0}};
            for (v = 0; v < V; v = v + 1) begin
                if (ej_valid && ej_vc == v[VB-1:0]) begin
                    ej_credit[v] <= 1'b1;
                    if (ej_head) begin
                        if (c_active[v] || h_route != ARRIVED || h_dst != ME
                            || ej_tail != (h_len == 2'd0))
                            errors <= errors + 32'd1;
                        c_src[v] <= h_src;
                        c_len[v] <= h_len;
                        c_seq[v] <= h_seq;
                        c_idx[v] <= 2'd1;
                        c_active[v] <= ~ej_tail;
                        if (ej_tail) received <= received + 32'd1;
                    end else begin
                        if (!c_active[v]
                            || ej_data != body_word(c_seq[v], c_src[v], ME, c_idx[v])
                            || ej_tail != (c_idx[v] == c_len[v]))
                            errors <= errors + 32'd1;
                        c_idx[v] <= c_idx[v] + 2'd1;
                        if (ej_tail) begin
                            c_active[v] <= 1'b0;
                            if (c_active[v]) received <= received + 32'd1;
                        end
                    end
                end
            end
        end
    end
endmodule
