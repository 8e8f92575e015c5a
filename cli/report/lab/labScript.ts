/**
 * The lab page's own script (plain ES2020, no imports): it reads the stories from the page's JSON
 * element, asks the reader for a prediction of every job's status and token and the account's
 * balance, then plays the step on the reference model bundled into the page (the global
 * `JobcheckLab`, labBundle.ts), and shows the reply, the rules, why (on a wrong guess), the score,
 * the diagram with the jobs in their states and the transitions just taken lit, and whether the
 * model did what the story records. A command's prediction starts with whether the store accepts
 * or refuses it. A documented mode's story runs on that mode's model (`Lab.documentedModel`), said
 * above the story. After a step the answer is brought into view (the next form takes the focus
 * without scrolling it away). Every text is set with textContent, never parsed as HTML: the
 * contract's inline code (`x`) becomes code elements holding text.
 *
 * A story can be edited (labEditScript.ts) and the exercises and the worksheet (labWorkScript.ts)
 * use the functions here: `begin` starts a story object (a fixture or an edited one), `playNext`
 * plays and shows a step; every step played is recorded in the worksheet (`sheet`).
 *
 * It is a string because the project's TypeScript has no DOM library; the browser tests
 * (labPage.test.ts, labWorksheet.test.ts) hold it to its behaviour.
 */
import { LAB_EDIT_SCRIPT } from './labEditScript.ts';
import { LAB_WORK_SCRIPT } from './labWorkScript.ts';

const CORE = `  const data = JSON.parse(document.getElementById('lab-data').textContent);
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const STATUSES = ['ready', 'waiting', 'running', 'done', 'dead'];
  /** Appends text to an element, each \`inline code\` span of it as a code element (text only). */
  const withCode = (parent, text) => {
    String(text).split('\u0060').forEach((part, i) => {
      if (part === '') return;
      parent.appendChild(i % 2 === 1 ? el('code', '', part) : document.createTextNode(part));
    });
    return parent;
  };
  const select = $('lab-story');
  let story, state, index, points, asked, finished, play;

  if (Lab === undefined) {
    $('lab-check').className = 'lab-check bad';
    $('lab-check').textContent = 'The model bundle did not load: this page cannot play the story.';
    return;
  }

  const jobsOf = (snapshot) => snapshot.jobs;
  const show = (v) => (v === null || v === undefined ? '–' : String(v));

  /** The jobs a reader predicts at the current step: those admitted, and the one this step submits. */
  function predictedJobs() {
    const snap = Lab.toSnapshot(state);
    const ids = Object.keys(jobsOf(snap));
    const s = story.steps[index];
    if (s && s.do && s.do.type === 'submit' && typeof s.do.id === 'string' && !ids.includes(s.do.id)) ids.push(s.do.id);
    return ids;
  }

  function describeCommand(step) {
    if (step.do) {
      const { type, ...rest } = step.do;
      return type + ' ' + Object.entries(rest).map(([k, v]) => k + '=' + JSON.stringify(v)).join(' ');
    }
    if (step.restart) return 'restart: snapshot → JSON text → a fresh store';
    if (step.aliasSnapshot) return 'check: take a snapshot, then change the snapshot object in place';
    return 'check: restore a fresh store from a snapshot, then change that snapshot object';
  }

  function renderForm() {
    const snap = Lab.toSnapshot(state);
    const total = story.steps.length;
    const step = story.steps[index];
    $('lab-step-head').textContent = 'Step ' + (index + 1) + ' of ' + total + ': your prediction';
    $('lab-command').textContent = describeCommand(step);
    // Only a command gets a reply: whether the store accepts it is the first thing to predict.
    $('lab-outcome-row').hidden = !step.do;
    $('lab-outcome').value = '';
    const body = $('lab-fields');
    body.replaceChildren();
    for (const id of predictedJobs()) {
      const job = snap.jobs[id];
      const tr = el('tr');
      tr.dataset.job = id;
      const th = el('th', '', id);
      th.scope = 'row';
      if (id === story.focus.job) th.appendChild(el('span', 'lab-focus-tag', ' focus'));
      const statusCell = el('td');
      const sel = el('select');
      sel.name = 'status';
      sel.setAttribute('aria-label', 'status of job ' + id + ' after the step');
      for (const s of ['none', ...STATUSES]) {
        const o = el('option', '', s === 'none' ? '– (not submitted)' : s);
        o.value = s;
        sel.appendChild(o);
      }
      sel.value = job === undefined ? 'none' : job.status;
      statusCell.appendChild(sel);
      const tokenCell = el('td');
      const input = el('input');
      input.name = 'token';
      input.inputMode = 'numeric';
      input.placeholder = '– (none)';
      input.setAttribute('aria-label', 'token of job ' + id + ' after the step (empty: none)');
      input.value = job && job.token !== undefined ? String(job.token) : '';
      tokenCell.appendChild(input);
      tr.append(th, statusCell, tokenCell);
      body.appendChild(tr);
    }
    $('lab-account').textContent = story.focus.account;
    $('lab-balance').value = String(snap.balances[story.focus.account] ?? 0);
    const first = step.do ? $('lab-outcome') : body.querySelector('select') || $('lab-balance');
    // The focus moves to the next question without scrolling the answer just shown out of view.
    first.focus({ preventScroll: true });
  }

  function litDiagram(snapshot, moves) {
    const byState = {};
    for (const [id, job] of Object.entries(snapshot.jobs)) (byState[job.status] = byState[job.status] || []).push(id);
    const focusStatus = snapshot.jobs[story.focus.job] ? snapshot.jobs[story.focus.job].status : null;
    for (const g of root.querySelectorAll('svg.lifecycle g.state')) {
      const s = g.getAttribute('data-state');
      const ids = byState[s] || [];
      g.classList.toggle('has-jobs', ids.length > 0);
      g.classList.toggle('lit', s === focusStatus);
      const t = g.querySelector('text.jobs');
      if (t) t.textContent = ids.length > 3 ? ids.slice(0, 3).join(', ') + ' +' + (ids.length - 3) : ids.join(', ');
    }
    const taken = new Set(moves.map((m) => m.transition));
    for (const g of root.querySelectorAll('svg.lifecycle g.edge, svg.lifecycle g.edge-label'))
      g.classList.toggle('taken', taken.has(g.getAttribute('data-transition')));
  }

  function renderState(snapshot) {
    const body = $('lab-state-body');
    body.replaceChildren();
    const ids = Object.keys(snapshot.jobs);
    if (ids.length === 0) {
      const tr = el('tr');
      const td = el('td', 'lab-empty', 'no job yet');
      td.colSpan = 7;
      tr.appendChild(td);
      body.appendChild(tr);
    }
    for (const id of ids) {
      const j = snapshot.jobs[id];
      const tr = el('tr');
      tr.dataset.job = id;
      if (id === story.focus.job) tr.className = 'focus';
      const cells = [id, j.status + (j.reason ? ' (' + j.reason + ')' : ''), show(j.token), String(j.attempts), show(j.leaseUntil), show(j.notBefore), String(j.payload.deadline)];
      cells.forEach((c, i) => {
        const td = el(i === 0 ? 'th' : 'td', i === 1 ? 'st st-' + j.status : '', c);
        if (i === 0) td.scope = 'row';
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
    const balances = Object.entries(snapshot.balances).map(([a, b]) => a + ' ' + b).join(', ') || 'none yet';
    $('lab-clock').textContent = 'clock ' + snapshot.clock + ' · next token ' + snapshot.nextToken + ' · balances: ' + balances;
  }

  function renderScore() {
    $('lab-score').textContent = 'Score: ' + points + ' of ' + asked;
  }

  /** The model a story runs on: a documented mode's, or the contract's. */
  let model = Lab;
  function start(name) {
    begin(data.stories.find((s) => s.name === name) || data.stories[0]);
  }

  /** Starts \`s\` (a fixture story, or an edited copy with \`edited: true\` and no record of the original). */
  function begin(s) {
    story = s;
    if (data.stories.some((x) => x.name === story.name)) select.value = story.name;
    model = story.model ? Lab.documentedModel(story.model) : Lab;
    state = model.initialState(story.config);
    $('lab-documented').hidden = !story.model;
    $('lab-documented').textContent = story.model
      ? 'Documented, not measured: this story runs the model of ' + story.modelLabel + ', the contract with the variants its documentation calls for (docs/profiles/documented/), not the contract itself and not the service.'
      : '';
    index = 0;
    points = 0;
    asked = 0;
    finished = false;
    $('lab-title').textContent = story.name + (story.edited ? ' (edited)' : '') + ': ' + story.title;
    $('lab-text').replaceChildren();
    withCode($('lab-text'), story.story);
    const c = story.config;
    $('lab-config').textContent = 'Focus: job ' + story.focus.job + ', account ' + story.focus.account + '. Config: capacity ' + c.capacity + ', maxAttempts ' + c.maxAttempts + ', leaseTicks ' + c.leaseTicks + ', backoffBase ' + c.backoffBase + ', backoffCap ' + c.backoffCap + '.';
    $('lab-history').replaceChildren();
    $('lab-result').hidden = true;
    $('lab-end').hidden = true;
    $('lab-predict').hidden = false;
    const snap = Lab.toSnapshot(state);
    renderState(snap);
    litDiagram(snap, []);
    renderScore();
    renderForm();
    play = { story: story.name, title: story.title, edited: !!story.edited, focus: { job: story.focus.job, account: story.focus.account }, steps: story.steps.map(bareStep), trace: [] };
    playPushed = false;
    renderSteps();
  }

  /** A story step without the original story's record of it, as the worksheet keeps it. */
  function bareStep(s) {
    if (s.do) return { do: s.do };
    if (s.restart) return { restart: true };
    return s.aliasSnapshot ? { aliasSnapshot: true } : { aliasRestore: true };
  }

  function readPrediction() {
    const jobs = {};
    for (const tr of $('lab-fields').querySelectorAll('tr')) {
      const status = tr.querySelector('select').value;
      const token = tr.querySelector('input').value.trim();
      jobs[tr.dataset.job] = { status: status === 'none' ? null : status, token: token === '' ? null : token };
    }
    return { outcome: $('lab-outcome-row').hidden ? null : $('lab-outcome').value, jobs, balance: $('lab-balance').value.trim() };
  }

  const said = (outcome) => (outcome === 'accepted' ? 'it accepts it' : outcome === 'refused' ? 'it refuses it' : '–');

  function scoreOf(guess, snapshot, reply) {
    const lines = [];
    let right = 0;
    let total = 0;
    if (reply !== undefined && guess.outcome !== null) {
      const outcome = reply.ok ? 'accepted' : 'refused';
      const what = reply.ok ? 'accepts it' : 'refuses it (' + reply.code + ')';
      const ok = guess.outcome === outcome;
      total += 1;
      right += ok ? 1 : 0;
      lines.push({ ok, text: 'the store ' + what + (ok ? '' : ', you said ' + said(guess.outcome)) });
    }
    for (const [id, g] of Object.entries(guess.jobs)) {
      const j = snapshot.jobs[id];
      const status = j ? j.status : null;
      const token = j && j.token !== undefined ? String(j.token) : null;
      total += 2;
      const sOk = g.status === status;
      const tOk = g.token === token;
      right += (sOk ? 1 : 0) + (tOk ? 1 : 0);
      lines.push({ ok: sOk, text: 'job ' + id + ' status ' + (sOk ? show(status) : 'is ' + show(status) + ', you said ' + show(g.status)) });
      lines.push({ ok: tOk, text: 'job ' + id + ' token ' + (tOk ? show(token) : 'is ' + show(token) + ', you said ' + show(g.token)) });
    }
    const balance = String(snapshot.balances[story.focus.account] ?? 0);
    const bOk = guess.balance === balance;
    total += 1;
    right += bOk ? 1 : 0;
    lines.push({ ok: bOk, text: story.focus.account + ' balance ' + (bOk ? balance : 'is ' + balance + ', you said ' + (guess.balance || '–')) });
    return { right, total, lines };
  }

  function list(id, items, make) {
    const ul = $(id);
    ul.replaceChildren();
    for (const item of items) ul.appendChild(make(item));
  }

  function onStep(event) {
    event.preventDefault();
    if (finished) return;
    playNext(readPrediction());
    renderSteps();
  }

  /**
   * Plays the next step on the model and shows its answer: with \`guess\`, scored against it (the
   * why shown on a wrong guess); without one (a step replayed after an edit), unscored, the why
   * always shown. Records the step in the worksheet.
   */
  function playNext(guess) {
    const step = story.steps[index];
    const result = Lab.playStoryStep(state, step, index + 1, story.focus.job, model);
    state = result.state;
    const score = guess ? scoreOf(guess, result.snapshot, result.reply) : { right: 0, total: 0, lines: [{ ok: true, text: 'played without a prediction: the model answers the edited story' }] };
    points += score.right;
    asked += score.total;
    sheet.score.points += score.right;
    sheet.score.asked += score.total;
    const wrong = score.right < score.total || !guess;
    const entry = { step: index + 1, command: describeCommand(step) };
    if (step.do) entry.do = step.do;
    if (result.reply !== undefined) entry.reply = result.reply;
    if (result.outcome !== undefined) entry.outcome = result.outcome;
    entry.moves = result.moves.map((m) => ({ job: m.job, from: m.from, to: m.to }));
    if (guess) entry.prediction = guess;
    entry.points = score.right;
    entry.of = score.total;
    play.trace.push(entry);
    // A play enters the worksheet with its first step: a story only looked at is not kept.
    if (!playPushed) {
      sheet.plays.push(play);
      playPushed = true;
      if (sheet.plays.length > 200) sheet.plays.shift();
    }
    renderSheet();

    $('lab-result').hidden = false;
    $('lab-result-head').textContent = 'What step ' + (index + 1) + ' did: ' + describeCommand(step);
    const reply = $('lab-reply');
    reply.textContent = result.reply !== undefined ? JSON.stringify(result.reply) : result.outcome;
    reply.className = 'lab-reply ' + (result.reply === undefined || result.reply.ok ? 'ok' : 'refused');
    $('lab-reply-label').textContent = result.reply !== undefined ? (result.reply.ok ? 'reply (accepted)' : 'reply (refused)') : 'outcome';
    $('lab-points').textContent = guess ? '+' + score.right + ' of ' + score.total + (wrong ? '' : ': all right') : '(no prediction)';
    $('lab-points').className = 'lab-points ' + (guess && wrong ? 'some-wrong' : 'all-right');
    list('lab-verdict', score.lines, (l) => el('li', l.ok ? 'right' : 'wrong', (l.ok ? '✓ ' : '✗ ') + l.text));
    $('lab-why-box').hidden = !wrong;
    list('lab-why', wrong ? result.explanations : [], (e) => {
      const li = withCode(el('li'), e.sentence);
      if (e.rule) li.dataset.rule = e.rule;
      return li;
    });
    list('lab-moves', result.moves.length ? result.moves : [null], (m) =>
      el('li', '', m === null ? 'no job changed state' : 'job ' + m.job + ': ' + m.from + ' → ' + m.to + '  (' + m.transition + ')'),
    );
    list('lab-rules', result.rules.length ? result.rules : [null], (r) => {
      const li = el('li');
      if (r === null) {
        li.textContent = 'no contract rule decided this step';
        return li;
      }
      const id = el(data.contractUrl ? 'a' : 'span', 'lab-rule-id', r.id);
      if (data.contractUrl) {
        id.href = data.contractUrl + '#rule-' + r.id;
        id.title = 'the rule in ' + data.contractLabel;
      }
      li.append(id, withCode(el('span'), ': ' + r.sentence));
      return li;
    });
    const check = $('lab-check');
    list('lab-mismatches', result.mismatches, (m) => el('li', '', m));
    check.className = 'lab-check ' + (result.mismatches.length ? 'bad' : 'good');
    check.textContent = story.edited
      ? 'An edited story: the model\\'s answer is its only record.'
      : result.mismatches.length
        ? '✗ The model in this page departs from what the story records:'
        : '✓ The model in this page did what the story records.';
    $('lab-result-note').replaceChildren();
    if (step.note) withCode($('lab-result-note'), 'Story note: ' + step.note);

    const li = el('li');
    li.dataset.step = String(index + 1);
    if (result.reply !== undefined) li.dataset.reply = JSON.stringify(result.reply);
    li.append(el('span', 'lab-h-cmd', describeCommand(step)), el('span', 'lab-h-pts ' + (guess && wrong ? 'some-wrong' : 'all-right'), guess ? ' +' + score.right + '/' + score.total : ' replayed'));
    $('lab-history').appendChild(li);

    renderState(result.snapshot);
    litDiagram(result.snapshot, result.moves);
    renderScore();
    index += 1;
    if (index < story.steps.length) {
      renderForm();
      keepInView($('lab-result'));
      return;
    }
    finished = true;
    $('lab-predict').hidden = true;
    $('lab-end').hidden = false;
    const final = story.edited ? [] : Lab.finalMismatches(result.snapshot, story.final);
    $('lab-final').textContent = 'The story is over: ' + points + ' of ' + asked + ' predictions right.';
    const fc = $('lab-final-check');
    fc.className = 'lab-check ' + (final.length ? 'bad' : 'good');
    fc.textContent = story.edited ? 'The edited story is over: edit a step to try another variation.' : final.length ? '✗ ' + final.join('; ') : '✓ The model ends where the story says it ends.';
    $('lab-again').focus({ preventScroll: true });
    keepInView($('lab-result'));
  }

  /** Scrolls the page so that the answer's top is in the window, unless it is wholly there already. */
  function keepInView(box) {
    const r = box.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: 'start' });
  }

  $('lab-predict').addEventListener('submit', onStep);
  select.addEventListener('change', () => start(select.value));
  $('lab-restart').addEventListener('click', () => begin(story.edited ? story : data.stories.find((s) => s.name === select.value)));
  $('lab-again').addEventListener('click', () => begin(story));
`;

/** The page's whole script: the core, the editor, the exercises and the worksheet in one closure. */
export const LAB_SCRIPT = `(() => {
  const root = document.getElementById('lab');
  if (root === null) return;
  const Lab = window.JobcheckLab;
  let sheet = Lab === undefined ? null : Lab.emptyWorksheet();
${CORE}
${LAB_EDIT_SCRIPT}
${LAB_WORK_SCRIPT}
  if (!openShared()) start(data.initial);
})();`;
