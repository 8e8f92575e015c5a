/**
 * The race section's styles, every rule under `#race`. Colours mean one thing each and the legend
 * names them; each also has a mark (✓, ✕, ?) or a pattern (stripes, a dashed edge), so that the
 * page reads the same without colour. Text is never cut: labels are laid out by the script
 * (inside a bar that holds them, else on a free line under the lane) and long values wrap.
 */

/** The colours of the places, as CSS values (the legend and the bars share them). */
export const RACE_COLOURS = {
  prefix: { edge: '#1a7f37', fill: '#dafbe1' },
  stuck: { edge: '#cf222e', fill: '#ffebe9' },
  after: { edge: '#57606a', fill: '#eaeef2' },
  left_out: { edge: '#9a6700', fill: '#fff8c5' },
  selected: '#0969da',
} as const;

const C = RACE_COLOURS;

/** The section's CSS, scoped under `#<id>`. Pure. */
export function raceStyles(id: string): string {
  const s = `#${id}`;
  return `
${s}{--rp:${C.prefix.edge};--rpf:${C.prefix.fill};--rs:${C.stuck.edge};--rsf:${C.stuck.fill};--ra:${C.after.edge};--raf:${C.after.fill};--rl:${C.left_out.edge};--rlf:${C.left_out.fill};--rsel:${C.selected};min-width:0}
${s} h2{font-size:1.5rem;margin:0 0 .25rem}
${s} p{overflow-wrap:anywhere}
${s} .rwhat{margin:.25rem 0 .4rem;padding:.4rem .75rem;border-left:4px solid var(--rs);background:var(--rsf);font-weight:600;max-width:70rem}
${s} .rsummary{margin:.25rem 0 .6rem;max-width:70rem}
${s} table.rstuck{width:100%;border-collapse:collapse;table-layout:fixed;margin:0 0 1rem;font-size:.9rem;border:1px solid #f0c8c2}
${s} table.rstuck th,${s} table.rstuck td{text-align:left;vertical-align:top;padding:.3rem .6rem;overflow-wrap:anywhere}
${s} table.rstuck thead th{color:#59636e;font-weight:600;border-bottom:1px solid #f0c8c2}
${s} table.rstuck tbody td{background:#fff8f6}
${s} table.rstuck .c-req{width:40%}
${s} table.rstuck td.rdiffers{color:#82071e;font-weight:700;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
${s} table.rstuck td.rmodel{color:#1a7f37;font-weight:700;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
${s} table.rstuck .rwhere{color:#59636e}
${s} .rlegend{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;list-style:none;margin:0 0 1rem;padding:.6rem .9rem;border:1px solid #d1d9e0;border-radius:6px;background:#f6f8fa;font-size:.875rem}
${s} .rlegend li{display:flex;align-items:center;gap:.45rem;min-width:0}
${s} .rswatch{display:inline-block;flex:none;width:2.2rem;height:1rem;border:2px solid;border-radius:3px;font-size:.7rem;line-height:.8rem;text-align:center;font-weight:700}
${s} .rswatch.prefix{border-color:var(--rp);background:var(--rpf);color:var(--rp)}${s} .rswatch.stuck{border-color:var(--rs);background:var(--rsf);color:var(--rs);border-width:3px}${s} .rswatch.after{border-color:var(--ra);background:var(--raf)}${s} .rswatch.noreply{border-style:dashed;border-color:var(--rl);color:var(--rl)}${s} .rswatch.left_out{border-color:var(--rl);border-style:dashed;background:repeating-linear-gradient(135deg,var(--rlf) 0 6px,#fff 6px 10px);color:var(--rl)}
${s} .rchart{border:1px solid #d1d9e0;border-radius:6px;padding:.5rem .75rem .25rem;background:#fff}
${s} .rrow{display:grid;grid-template-columns:4.5rem minmax(0,1fr);align-items:start;border-bottom:1px solid #eef1f4}
${s} .rrow:last-child{border-bottom:0}
${s} .rname{font-size:.85rem;font-weight:600;color:#59636e;padding-top:.55rem}
${s} .rname small{display:block;font-weight:400}
${s} .rtrack{position:relative;min-height:4rem;min-width:0}
${s} .raxis .rtrack{min-height:3rem;border-bottom:1px solid #8c959f}
${s} .rtick,${s} .rroundlabel{position:absolute;white-space:nowrap;font-size:.78rem;line-height:1.1rem;color:#59636e;font-variant-numeric:tabular-nums}
${s} .rtick{top:.2rem;border-left:1px solid #8c959f;padding-left:.2rem}
${s} .rroundlabel{top:1.5rem;border-left:2px dotted #8c959f;padding-left:.25rem;color:#1f2328}
${s} .rroundline{position:absolute;top:0;bottom:0;border-left:1px dotted #afb8c1;pointer-events:none}
${s} .rfault{position:absolute;top:0;bottom:0;background:#fbefc7;border:1px dashed #bf8700;border-radius:3px}
${s} .rfaultlabel{position:absolute;bottom:0;left:.25rem;font-size:.7rem;color:#7d4e00;white-space:nowrap}
${s} button.rreq{position:absolute;top:6px;height:26px;margin:0;padding:0;border:2px solid var(--ra);border-radius:4px;background:var(--raf);cursor:pointer;overflow:visible;font:inherit;color:#1f2328;text-align:left}
${s} button.rreq.prefix{border-color:var(--rp);background:var(--rpf)}
${s} button.rreq.stuck{border-color:var(--rs);background:var(--rsf);border-width:3px}
${s} button.rreq.left_out{border-color:var(--rl);border-style:dashed;border-right:0;background:repeating-linear-gradient(135deg,var(--rlf) 0 6px,#fff 6px 10px)}
${s} button.rreq.noreply{border-style:dashed;border-right-width:0}
${s} button.rreq:hover,${s} button.rreq.rshown{box-shadow:0 0 0 2px #fff,0 0 0 4px #8c959f}
${s} button.rreq.rselected{box-shadow:0 0 0 2px #fff,0 0 0 5px var(--rsel)}
${s} button.rreq:focus-visible{outline:3px solid var(--rsel);outline-offset:3px}
${s} .rlabel{position:absolute;left:0;top:30px;white-space:nowrap;font-size:.8rem;line-height:1.1rem;padding:0 .3rem;color:#1f2328;background:#fff;border-left:3px solid var(--ra);border-radius:2px}
${s} .rbarid{position:absolute;left:4px;top:50%;transform:translateY(-50%);font-size:.75rem;line-height:1.1rem;font-weight:600;color:#1f2328;white-space:nowrap;visibility:hidden;max-width:calc(100% - 4px);overflow:hidden}
${s} .rbarid.rfits{visibility:visible}
${s} .rlabel.rinside{background:transparent;border-left:0;padding:0}
${s} .prefix>.rlabel{border-left-color:var(--rp)}${s} .stuck>.rlabel{border-left-color:var(--rs)}${s} .left_out>.rlabel{border-left-color:var(--rl)}
${s} .rselected>.rlabel,${s} .rshown>.rlabel{background:#ddf4ff;text-decoration:underline}
${s} .rmark{font-weight:700}${s} .stuck .rmark{color:var(--rs)}${s} .prefix .rmark{color:var(--rp)}${s} .noreply .rmark{color:var(--rl)}
${s} .rhelp{font-size:.85rem;color:#59636e;margin:.4rem 0 1rem}
${s} kbd{font:inherit;font-size:.8rem;border:1px solid #d1d9e0;border-bottom-width:2px;border-radius:4px;padding:0 .3rem;background:#f6f8fa}
${s} .rpanel{border:2px solid #d1d9e0;border-radius:8px;padding:.75rem 1rem;margin:0 0 1.25rem;background:#fff}
${s} .rpanel[data-place="stuck"]{border-color:var(--rs)}${s} .rpanel[data-place="prefix"]{border-color:var(--rp)}
${s} .rdetail h3{margin:0;font-size:1.15rem;display:flex;flex-wrap:wrap;align-items:center;gap:.3rem .6rem}
${s} .rid{font-variant-numeric:tabular-nums}
${s} .rbadge{font-size:.8rem;font-weight:600;padding:.1rem .5rem;border-radius:999px;border:1px solid var(--ra);background:var(--raf)}
${s} .rbadge.prefix{border-color:var(--rp);background:var(--rpf)}${s} .rbadge.stuck{border-color:var(--rs);background:var(--rsf);color:#82071e}${s} .rbadge.left_out{border-color:var(--rl);background:var(--rlf)}
${s} .rwhen{color:#59636e;margin:.2rem 0 .5rem;font-size:.9rem}
${s} .rreplies{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2rem 1rem;margin:.25rem 0;font-size:.95rem}
${s} .rreplies dt{color:#59636e}
${s} .rreplies dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem;overflow-wrap:anywhere;min-width:0}
${s} .rreplies dd.rdiffers{color:#82071e;font-weight:700}
${s} .rplace{margin:.5rem 0;max-width:70rem}
${s} .rstates{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem;margin:.5rem 0}
${s} .rstates section{min-width:0;border:1px solid #eef1f4;border-radius:6px;padding:.5rem .75rem;background:#fbfcfd}
${s} .rstates h4,${s} .rjsons h4{margin:0 0 .3rem;font-size:.95rem}
${s} .rhint{font-weight:400;color:#59636e;font-size:.8rem}
${s} .rcounters,${s} .rmoney,${s} .rnone{margin:.2rem 0;font-size:.875rem}
${s} table.rjobs{border-collapse:collapse;font-size:.85rem;margin:.3rem 0;max-width:100%}
${s} table.rjobs th,${s} table.rjobs td{border-bottom:1px solid #eef1f4;padding:.15rem .5rem .15rem 0;text-align:left;overflow-wrap:anywhere}
${s} table.rjobs thead th{color:#59636e;font-weight:600}
${s} mark{background:#fff0a8;color:inherit;padding:0 .15rem;border-radius:2px;font-weight:700}
${s} .rjson summary{cursor:pointer;color:#0969da;font-size:.9rem}
${s} .rjsons{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.75rem}
${s} .rjsons pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.78rem;background:#f6f8fa;padding:.4rem .5rem;border-radius:4px;min-width:0}
${s} h3.rlisthead{font-size:1.05rem;margin:1.25rem 0 .4rem}
${s} table.rlist{width:100%;border-collapse:collapse;font-size:.85rem;table-layout:fixed}
${s} table.rlist th,${s} table.rlist td{text-align:left;vertical-align:top;padding:.25rem .5rem .25rem 0;border-bottom:1px solid #eef1f4;overflow-wrap:anywhere}
${s} table.rlist thead th{color:#59636e;font-weight:600}
${s} table.rlist tr.rshown{background:#f1f8ff}
${s} table.rlist td.rdiffers{color:#82071e;font-weight:600}
${s} table.rlist .c-id{width:3.5rem}${s} table.rlist .c-lane{width:3.5rem}${s} table.rlist .c-t{width:5.5rem}${s} table.rlist .c-place{width:9rem}
${s} .rexports{margin-top:1rem;padding:.6rem .9rem;border-left:4px solid #0969da;background:#f6f8fa;border-radius:4px}
`;
}
