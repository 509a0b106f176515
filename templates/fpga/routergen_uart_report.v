// routergen_uart_report: every PERIOD cycles, sends one line
// "P=pppppppp E=eeeeeeee\r\n" (packets received and errors counted by all
// checkers, in hexadecimal) on tx, 8 data bits, no parity, one stop bit,
// DIV clock cycles per bit (clock / 115200 for 115200 baud).
module routergen_uart_report #(
    parameter DIV = 104,
    parameter PERIOD = 6000000
) (
    input wire clk,
    input wire rst,
    input wire [31:0] packets,
    input wire [31:0] errors,
    output reg tx
);
    localparam [31:0] PERIOD_LAST = PERIOD - 1;
    localparam [15:0] DIV_LAST = DIV - 1;
    reg [31:0] timer;
    reg [63:0] snap;      // {packets, errors}, shifted out a nibble per hex digit
    reg [4:0] ch;         // character of the line being sent
    reg sending;          // a line is being sent
    reg [9:0] frame;      // stop bit, data, start bit: LSB first
    reg [3:0] bits;       // bits of the frame still to send
    reg [15:0] baud;

    function [7:0] hex(input [3:0] n);
        hex = n < 4'd10 ? 8'd48 + {4'd0, n} : 8'd55 + {4'd0, n};
    endfunction

    // Character ch of the line; the digits come from the top of snap.
    reg [7:0] char;
    always @(*) begin
        case (ch)
            5'd0: char = "P";
            5'd1, 5'd12: char = "=";
            5'd10: char = " ";
            5'd11: char = "E";
            5'd21: char = 8'd13;
            5'd22: char = 8'd10;
            default: char = hex(snap[63:60]);
        endcase
    end
    wire digit = (ch >= 5'd2 && ch <= 5'd9) || (ch >= 5'd13 && ch <= 5'd20);

    always @(posedge clk) begin
        if (rst) begin
            tx <= 1'b1;
            timer <= 32'd0;
            snap <= 64'd0;
            ch <= 5'd0;
            sending <= 1'b0;
            frame <= 10'h3ff;
            bits <= 4'd0;
            baud <= 16'd0;
        end else begin
            timer <= timer == PERIOD_LAST ? 32'd0 : timer + 32'd1;
            if (!sending && timer == PERIOD_LAST) begin
                sending <= 1'b1;
                snap <= {packets, errors};
                ch <= 5'd0;
            end
            if (bits != 4'd0) begin
                if (baud == DIV_LAST) begin
                    baud <= 16'd0;
                    tx <= frame[0];
                    frame <= {1'b1, frame[9:1]};
                    bits <= bits - 4'd1;
                end else begin
                    baud <= baud + 16'd1;
                end
            end else if (sending) begin
                // Load the next character: start bit, 8 data bits, stop bit.
                frame <= {1'b1, char, 1'b0};
                bits <= 4'd10;
                baud <= DIV_LAST;
                if (digit) snap <= {snap[59:0], 4'd0};
                if (ch == 5'd22) sending <= 1'b0;
                ch <= ch + 5'd1;
            end
        end
    end
endmodule
