"""The CPU training profile: what a training run changes when it runs on a CPU instead of a GPU.

Isaac Lab's Go2 defaults are sized for a GPU (4096 environments, two 2.5 ms MuJoCo-Warp substeps per 5 ms physics
step, 24-step rollouts, adaptive learning rate). On a 2-core CPU that is hours per walking policy. This profile is the
one place that defines the CPU settings; ``train.py`` applies it when the device is ``cpu`` (command-line flags and
``env.``/``agent.`` overrides win over it), prints it and saves it as ``params/cpu_profile.yaml``. The GPU path is
untouched. Each value's docstring says what was measured for it.
"""

from __future__ import annotations

from isaaclab.utils import configclass, replace

from locolab.envs.observation_noise import noise_free_share, set_noise_free_envs


@configclass
class SacCpuProfileCfg:
    """SAC's sizes on a CPU (``--agent sac``): fewer environments' worth of data per iteration and smaller
    minibatches than the GPU defaults, with several gradient steps per chunk.

    SAC trains on PPO's commands and rewards, the turns in place (``turn_in_place_envs``) and the trot gait reward
    (``trot_gait_weight``) included. Before them (a fifth of the resamples turning in place alone made it worse) no
    SAC run's final checkpoint turned in place faster than 0.21 rad/s. With both (seed 42, async, 2026-11-29)
    the training errors fell to 0.16-0.18 m/s and 0.28 rad/s by iteration 1700 (this profile before: 0.25-0.29 and
    0.35-0.41 over 1400-1999), iteration 1999 (56 minutes) passed the forward and standing checks (0.57 m/s, error
    0.112; 0.05 m/s) and turned in place at 0.45 rad/s (error 0.455, the limit 0.3), and resumed, 2300 (64 minutes)
    passed every walking check (turning 0.92 rad/s, error 0.196) and both MuJoCo checks, the first SAC checkpoint to do
    so (docs/measurements/sac.md). An uninterrupted run with 16 updates (2026-11-30) passed every walking check at
    2100 (53.6 minutes) and 2400, not at its final iteration. With twice the updates (``num_updates``) and the
    synchronous collector (2026-11-30) iteration 1200 passed every check 42.8 minutes in, sooner than PPO (48.8)."""

    num_steps_per_env: int = 8
    """Steps of every environment per iteration: 4096 transitions at 512 environments."""
    batch_size: int = 1024
    num_updates: int = 32
    """Gradient steps per iteration: each transition is replayed about 8 times. With the synchronous collector (the
    default) the update runs on both cores while the simulation waits, 32-35 ms a step against 52-57 ms on one thread,
    so 32 updates cost 1.1-1.2 s of a 2.0-2.3 s iteration. Measured (seed 42, sync, 2026-11-30): iteration 1200 (42.8
    minutes, 4.9 M samples) passed every walking check and MuJoCo's; with 16 updates (async) the turn in place came
    at 2000-2100 (8.2-8.6 M samples, 51-54 minutes). Asynchronously 32 updates ran 2.3-2.5 s an iteration (the
    learner's one thread shares the cores with both simulation processes) and turned in place by 1445, not by 1245
    (49 minutes) (docs/measurements/sac.md)."""
    buffer_size: int = 400_000
    learning_starts: int = 16384
    max_iterations: int = 1600
    """About 55-60 minutes on 2 cores at 32 updates. The synchronous run of 2026-11-30 (seed 42) walked at 1200 and
    1300 (every walking check) and was stopped at 1397; the walking gate below trains on past 1600 while the final
    checkpoint fails. End to end with seed 7 (2026-11-30): 1599 after 58.6 minutes, 1300 (48.0) passed every check,
    1400-1599 failed one each, and the gate passed 1899, the run ending after 79 minutes."""
    walking_gate_extra_iterations: int = 600
    """On flat ground SAC trains on past ``max_iterations`` too, ``walking_gate_chunk`` iterations at a time, until the
    final checkpoint passes the walking checks, at most this many more (PPO's gate, ``walking_gate_extra_iterations``
    of :class:`CpuProfileCfg`); not when ``--max_iterations`` is given. Why: SAC's checkpoints of one run swing
    between passing and failing. The uninterrupted run with 16 updates (seed 42, async, 2026-11-30) turned in
    place from 2000 on, but under a 0.5 m/s command 2000 walked at 0.28 m/s, 2100 at 0.51 m/s (error 0.127, passing)
    and the final 2599 at 0.82 m/s (error 0.344); 2100 and 2400 passed every check, 2000, 2200, 2300, 2500 and 2599
    failed one each (docs/measurements/sac.md). With 32 updates (seed 7) the gate failed 1599 (no turn), 1699
    (standing at 0.13 m/s) and 1799 (forward error 0.172) and passed 1899."""
    walking_gate_chunk: int = 100
    """Iterations between two of the gate's checks: about 3.5 minutes of training, about as long as the checks."""
    actor_hidden_dims: list[int] = [256, 128]
    critic_hidden_dims: list[int] = [256, 256]
    """Smaller than the GPU networks: an update of the GPU-sized critic (512-256-128) on a 2048 batch took 216 ms on one
    core beside a training run."""
    critic_layer_norm: bool = True
    """LayerNorm in the critics' hidden layers (``agent.critic.layer_norm``): it keeps the critic from extrapolating
    to actions far from the data. Without it the standing CPU runs' actors held 38-52 % of their mean joint targets
    beyond 0.9 of the bound, where the tanh's gradient vanishes; with it and the entropy target below, the 2.5-97.5 %
    range of the mean actions stayed within 1.9 of the bound 3 (iteration 400). Not ablated alone: with it and the
    entropy target -12, the noise still shrank to 0.05 by iteration 230 (that run was stopped)."""
    target_entropy: float = 10.0
    """The entropy the temperature holds the actor at. SAC's usual ``-num_actions`` (-12) assumes actions in [-1, 1];
    with the bound of 3 it holds a pre-squash standard deviation near 0.03 (0.1 action units, 0.02 rad), and the CPU
    runs' noise shrank to 0.05-0.26 while they stood. 10 held it at 0.25-0.38 (about 0.75-1.1 action units at the
    centre, the noise PPO starts from), and the robot learned to walk forward (docs/measurements/sac.md)."""
    entropy_schedule: tuple[int, int, float] = (800, 1400, -4.0)
    """The entropy target falls from ``target_entropy`` to the third value between the two iterations
    (``agent.entropy_schedule``), as PPO's entropy bonus falls: wide noise while a gait is found, then a policy whose
    mean action (what play, export and the robot run) is the gait. The pre-squash standard deviation fell from 0.29 to
    0.18 (1400) and rose again to 0.23-0.25 (mean actions near the bound need more pre-squash noise for the same
    entropy). Measured against the same run held at 10 (seed 42, async; checkpoints 1200-2000, mean action): forward
    errors 0.167-0.339 (mean 0.234) against 0.141-0.455 (0.292), no falls from 1400 on against 1-3 in 16, standing
    at 0.01-0.07 m/s against 0.09-0.15, training yaw error 0.43-0.46 against 0.51-0.60; neither passed every walking
    check (docs/measurements/sac.md)."""
    symmetry_augmentation: bool = False
    """Mirrored copies of every transition in the replay buffer (``agent.algorithm.symmetry_augmentation``) stay off:
    with them (this profile, seed 42, async) the training tracking error was 0.70 over iterations 700-767, against
    0.41 and 0.43 in two runs without, and the run was stopped there. The buffer then holds half the wall-clock
    history and each collected transition is replayed half as often."""
    mean_penalty: float = 0.1
    """Weight of the squared pre-squash mean action in the actor's loss (``agent.algorithm.mean_penalty``): it keeps
    the mean joint targets off the tanh's flat ends, so the pre-squash noise can shrink as the entropy target falls.
    Measured against this profile without it (seed 42, async): the pre-squash std followed the schedule down to
    0.08-0.09 (without: 0.18, then back up to 0.25); at iteration 1999 the 2.5-97.5 % range of the mean actions under
    a 0.5 m/s command passed 0.9 of the bound in one joint of 12 (without, even played with its noise: one thigh held
    at -2.90 to -3.00); training tracking error over iterations 1400-1999 (100-iteration means) 0.25-0.29 m/s and
    0.35-0.41 rad/s against 0.28-0.32 and 0.43-0.46. Iteration 1600 (45 minutes) was the first SAC checkpoint to
    pass the forward and standing checks (0.56 m/s, error 0.144, no falls; 0.004 m/s), but it did not turn in place
    (0.02 rad/s under 1 rad/s) and iteration 1999 walked at 0.20 m/s only (docs/measurements/sac.md). At 0.01 (an
    earlier run with a fixed target of 0) the saturation crept back. Penalising only the excess beyond |u| = 1 (weight
    0.5, ``agent.algorithm.mean_penalty_free=1.0``) passed the forward and standing checks at iteration 1100 with seed
    42, but it turned in place at 0.63 rad/s at most, and with seed 7 no checkpoint passed the forward check by 1971
    (docs/measurements/sac.md): not adopted."""
    alpha_learning_rate: float = 3e-3
    """The temperature starts at 0.001 and must rise several-fold to hold the target: Adam moves the log-temperature
    by about the learning rate per step, so at 3e-4 (16 steps an iteration) a sixfold rise takes about 400
    iterations; at 3e-3 it rose from 0.001 to 0.006 in 56."""


@configclass
class PpoScheduleCfg:
    """When a PPO run on a CPU does what: its adaptive learning rate's target, the end of the entropy bonus, the
    action noise's falling ceiling, the end of mirroring and the run's length. The defaults are PPO's; the PPO-ROA
    teacher has its own (``CpuProfileCfg.roa_teacher``), measured on the schedule PPO had before 2026-12-01."""

    desired_kl: float = 0.02
    """The KL divergence rsl_rl's adaptive learning rate aims at (Isaac Lab's Go2: 0.01), until the action noise's
    window fixes the rate (``action_noise_window``): it sets how fast the policy leaves the standing it learns
    first. On 2 CPU cores the runs were decided there: at 0.01, ``make train`` runs whose training tracking error
    (``rollout/lin_vel_error``, 25-iteration trailing mean) fell below 0.45 m/s at iterations 118 and 142 walked at
    699, those at 195, 207 and 226 did not (their adaptive rate had averaged 2.7-3.7e-4 before, the walkers'
    5.5e-4). At 0.02 the rate climbs to rsl_rl's cap (1e-2) in the first iterations, and every run left standing
    at 71-96 (three 200-iteration probes and three ``make train`` runs, 2026-12-01; ``scripts/plot_learning_curve.py
    --first_below``); all three ``make train`` runs passed the walking gate at 699, two of them every check at play
    seed 0 (docs/measurements/cpu_ppo_walking.md has each run's figures)."""
    entropy_off: tuple[int, int] = (150, 151)
    """The entropy bonus falls from ``CpuProfileCfg.entropy_coef`` to 0 between these iterations
    (``agent.entropy_schedule``); a finetuning student starts without it. Under a constant bonus the action noise
    stayed near 0.7 and drove the gait: the stochastic policy walked while its mean action (what play, export and the
    robot run) stood. Without it the noise shrank and the mean action took the gait over within 150-250 iterations.
    PPO's bonus ends at 150 since the runs at ``desired_kl`` 0.02 left standing by 96 (``max_iterations`` has the
    measurement)."""
    action_noise_window: tuple[int, int] = (150, 385)
    """The action noise's ceiling falls from 1.0 to ``action_noise_final`` between these iterations, and the learning
    rate is held at ``CpuProfileCfg.action_noise_learning_rate`` from the first (``agent.action_noise_schedule``,
    :mod:`locolab.runners.action_noise_schedule`, whose docstring has the measurements). Without the ceiling the
    noise's own fall slowed near 0.38 at iteration 400 and stopped near 0.25; with it every joint's noise is at most
    ``action_noise_final`` from its end. A finetuning student starts without it. It opens with the entropy bonus's
    end (``entropy_off``)."""
    action_noise_final: float = 0.05
    """The action noise's last ceiling: 0.05, half the 0.1 of the runs before (2026-11-30), so that the robots
    without observation noise (``CpuProfileCfg.noise_free_observation_envs``) run nearly the mean action. Three of six
    ``make train`` runs at 0.1 learnt a gait that only the training's noise keeps up: their mean action walked
    0.30-0.35 m/s under 0.5 m/s, with sampled actions (std 0.1) 0.37-0.47 m/s, with Gaussian noise of 0.05 on the mean
    action 0.39 (docs/measurements/cpu_ppo_walking.md)."""
    symmetry_until: int = 585
    """The last ``max_iterations - symmetry_until`` iterations are not mirrored (agent ``symmetry_until``). Measured
    before the fine tracking rewards: the noise-ceiling run's iteration 899, mirrored throughout, turned in place at
    0.51 of 1 rad/s; resumed for 51 iterations without mirroring, 0.84 (every walking check passed). PPO-ROA teachers
    mirrored throughout did not turn in place (0.00 and 0.06 rad/s). Checkpoint 600 of the 700-iteration PPO runs,
    still mirrored, did not walk."""
    max_iterations: int = 635
    """Iterations of ``make train`` on a CPU (12288 samples each, 4-6 s each on 2 cores). PPO's schedule
    (``entropy_off``, ``action_noise_window``, ``symmetry_until``, this) ran 65 iterations longer (700) until
    2026-12-01: at ``desired_kl`` 0.01 runs left standing at 118-226, at 0.02 at 71-96, and the training tracking
    error stopped improving after 450-499 in the three 700-iteration runs at 0.02 (0.136-0.140 m/s over 450-499,
    0.128-0.138 over 650-699), whose ``make train`` ended 58.4-63.5 minutes after it started. Shifted 65 earlier
    (seed 42, 2026-12-01, nothing beside it): left standing by 75, iteration 634 passed the walking gate (play seed
    1: forward 0.59 m/s, error 0.122; turning error 0.081; no falls) and every check at play seed 0 (forward 0.60
    m/s, error 0.132; turning 0.99 rad/s, error 0.110; standing 0.08 m/s; no falls; MuJoCo errors 0.076 and, with
    friction 0.4 and 2 kg, 0.097), and ``make train`` ended 51.4 minutes after it started. Its confirmation
    (``make train`` from a fresh checkout, a fast day: 2.65 s an iteration) passed every check at 634 (forward 0.55
    m/s, error 0.084; turning error 0.080; MuJoCo errors 0.071 and 0.043) and ended after 33.1 minutes."""


@configclass
class CpuProfileCfg:
    """Environment count, physics and PPO settings for training on a CPU."""

    num_envs: int = 512
    """256 per simulation process: one process's random-action throughput doubles from 64 to 256 environments and
    then saturates (1024: 1.15x of 256)."""
    sim_processes: int = 2
    """Simulation processes, each stepping a slice of the robots (Warp's CPU kernels use one thread per process)."""
    num_substeps: int = 1
    """One MuJoCo-Warp step per physics step instead of two: 1.6-1.9x the env steps/s."""
    physics_dt: float = 0.005
    """Physics step [s]: Isaac Lab's 5 ms, with one MuJoCo-Warp step instead of two. 10 ms steps ran 1.76x the env
    steps/s (256 envs, random actions), but a policy trained there walked worse in the 5 ms physics of play.py
    and needed 1186 iterations; at 5 ms the recipe walked at iteration 900 (once at 450). 6.67 ms steps with
    decimation 3 (the same 20 ms policy step) raised the benchmark's PPO against stock from 2.29x to 2.69x, but
    ``make train``'s recipe (seed 42) then failed every forward check up to its final iteration 699 (0.58 m/s, error
    0.213, 1 fall), where at 5 ms the same seed walked at 600. The policy is also checked in MuJoCo's C engine
    (sim2sim.py), a simulator it did not train in."""
    decimation: int = 4
    """Physics steps per policy step: the policy acts every 20 ms, as on the robot."""
    integrator: str = "euler"
    """MuJoCo-Warp's integrator: Euler instead of Isaac Lab's implicit-fast, the same physics for this robot at less
    cost. Isaac Lab's DC-motor actuators are explicit torques and the joints have no passive damping, so the implicit
    integrator's velocity derivatives are zero: 8 robots under the same 250 random actions went through bit-identical
    joint positions with either (``tests/test_cpu_profile.py``). Random actions at 256 environments (one process,
    2026-11-28): 1.04-1.05x in three alternating pairs (3605-3744 against 3463-3592 steps/s); the benchmark's PPO
    against stock 2.40x (2 repeats) against 2.38x with implicit-fast (1 repeat): inside its noise."""
    solver_iterations: int = 100
    """Cap on the constraint solver's Newton iterations: Isaac Lab's; the 1e-6 tolerance ends the solve after about 4
    (846 iterations in 200 physics steps at 256 environments). A cap of 3 is not the same physics: with it (and Euler)
    random actions ran 4082-4247 steps/s (about 1.17x of the implicit-fast profile's 3331-3701), but ``make train``'s
    recipe (seed 42, 700 iterations in 33 minutes) did not walk in the checks' physics: iteration 699 forward 0.43 m/s,
    error 0.194; turning error 0.491, one fall. In its own physics it passed forward (0.48 m/s, error 0.106) and still
    failed turning (error 0.514). A cap below 100 turns off MuJoCo-Warp's per-world warning at the cap
    (:mod:`locolab.envs.solver_warnings`)."""
    skip_absent_passive_forces: bool = True
    """Skip MuJoCo-Warp's passive-force stage (joint springs and dampers, gravity compensation, fluid) and the Euler
    integrator's implicit-damping solve while the robot has none (:mod:`locolab.envs.passive_forces`): the Go2's are
    all zero, so the physics is the same up to float32 rounding (8 robots, 250 random actions with falls and resets:
    joint positions within 6.2e-6 rad, base heights within 2.1e-7 m). Random actions at 256 environments, one
    process, alternating blocks (2026-11-30): 2879-2951 against 2639-2676 steps/s (1.09x); py-spy put the passive
    stage at 6.5 % and the damping solve at 2.8 % of MuJoCo-Warp's step. The three ``make train`` runs that first had
    it failed the forward check at 699; a run with the stage computed (2026-11-30) failed it too (error 0.157) and
    walked at 749: no sign that the skip made them fail."""
    physics_engine: str = "mujoco_c"
    """What steps the worlds (the task's ``physics_engine``): MuJoCo's C engine under the same Newton model, managers
    and physics settings (locolab.envs.mujoco_c) instead of MuJoCo-Warp, whose CPU kernels spend much of a step on
    launch overhead. The same physics: 8 randomised, pushed robots under the same 150 random actions kept base
    heights within 0.2 mm and joint angles within 1.1 mrad of MuJoCo-Warp's (``tests/test_mujoco_c.py``); 256 robots
    in one process ran 8729 against 2949 random-action steps/s (2.96x); the benchmark's PPO 4.10x stock against
    2.43-2.60x on MuJoCo-Warp. ``make train`` (2026-12-02) passed the gate at its final iteration 634 in 3 of 3 runs,
    21.8-26.2 minutes after it started (MuJoCo-Warp's runs: 31.4-51.4), and every check in 2 of 3 (seed 1 failed
    MuJoCo's softer default contact). play.py checks in MuJoCo-Warp, an engine the policy did not train in."""
    tracking_reward_scale: float = 2.0
    """Multiplies the velocity-tracking rewards (``track_lin_vel_xy_exp``, ``track_ang_vel_z_exp``: 1.5 and 0.75 in
    Isaac Lab's Go2 config, 3.0 and 1.5 here). With the stock weights the first walking CPU policy took 1186
    iterations; with them doubled (and the 5 ms physics and the entropy schedule) 900. Not ablated alone."""
    fine_tracking_weights: tuple[float, float] = (2.0, 1.0)
    """Weights of a second pair of tracking rewards, ``track_lin_vel_xy_fine`` and ``track_ang_vel_z_fine``: Isaac
    Lab's same functions with a kernel of width ``fine_tracking_std`` (0, 0: none). The stock width (0.5) pays a
    robot that stands under a 0.3 m/s command 70 % of perfect tracking; seed 42's iteration 949 stood under 0.3 m/s
    (0.03 m/s) and 0.5 m/s (0.13 m/s) yet walked at 0.67 m/s under 1.0: a dead band at the slow commands the walking
    checks ask for. At width 0.25 standing under 0.3 m/s earns 24 %; the wide terms keep the gradient while errors
    are large. Measured with them (seed 42 again): iteration 550 walked 0.28 m/s under 0.3 and 0.58 m/s (error 0.114)
    under 0.5, and every walking check passed from iteration 500 instead of never in 950. Doubled from (1.0, 0.5) on
    2026-11-28, where two ``make train`` runs at (1.0, 0.5) (seed 42) failed the forward check at 699 (0.28 and 0.39
    m/s under 0.5, errors 0.288 and 0.200; one trained on to 1199 without walking): at (2.0, 1.0) the same command's
    iteration 699 passed every check with margin (forward 0.60 m/s, error 0.128; turning 1.02 rad/s, error 0.094;
    standing 0.05 m/s; MuJoCo errors 0.044 and, with friction 0.4 and 2 kg, 0.085). One run: a lead, not yet a
    rate."""
    fine_tracking_std: float = 0.25
    trot_gait_weight: float = 2.0
    """Weight of Isaac Lab's gait reward (its Spot task's ``GaitReward``) with the Go2's diagonal feet paired
    (``trot_gait``; PPO's and SAC's; 0: none). It pays feet of a diagonal pair that touch down and lift off together
    while the other pair is in the opposite phase, whenever a velocity is commanded. Added because the runs of this
    recipe that failed the forward check bounded too fast (8-9 touchdowns per foot and second, diagonal contact
    agreement 0.22-0.31 in training), while the one that walked trotted (0.73). Measured in ``make train`` (seed 42, the
    slow machine, one run each): at weight 1.0 with Spot's width (0.1) iteration 699 passed the Newton checks at both
    play seeds (forward error 0.133) and MuJoCo (0.059) but failed MuJoCo with friction 0.4 and 2 kg (0.170), and it
    still bounded (10.7 touchdowns a second, diagonal agreement 0.19): the term paid that 0.8 a step. At weight 2.0 with
    the width below (2026-11-29): the training gait turned to a trot as the noise fell (diagonal agreement 0.46 over
    iterations 0-199, 0.74 over 600-699, as the walking run's 0.73), and iteration 699 passed every check: play seed 0
    forward 0.55 m/s, error 0.123; turning 1.03 rad/s, error 0.120; standing 0.02 m/s; the gate's play seed 1 forward
    error 0.119 (the gate passed at 699); MuJoCo 0.44 m/s, error 0.112, and with friction 0.4 and 2 kg 0.57 m/s, error
    0.101; no falls. Under the 0.5 m/s check it still bounds (11.5 touchdowns a second, diagonal agreement 0.40), and
    trots turning in place (0.83). 76 minutes to iteration 699, 82 to the gate's verdict. A second complete run (52.9
    minutes to 699 on a faster day) trotted in training (0.88) and under the 0.5 m/s check (error 0.137 at 699) but let
    1-7 of 16 robots fall turning in place at every checkpoint from 500 to 799; the gate passed at 799 (66.6 minutes).
    Walked at 699 in 1 of 2 runs with a tenth of the commands turning in place, and in 2 of 6 runs with a fifth
    (``turn_in_place_envs``; three runs' mean action undershot at 0.7 of the command, a gait that tracks only under
    the training's noise; the sixth paced, failed the forward check by 0.007 m/s and walked at 749;
    docs/measurements/cpu_ppo_walking.md)."""
    trot_gait_std: float = 0.01
    """The gait reward's kernel width on squared time differences [s^2]. Spot's 0.1 suits its slow steps; the Go2's
    steps are 0.05-0.15 s, whose squared differences stay far below 0.1, so a bound earned nearly as much as a trot.
    The scripted gaits of ``tests/probe_scripted_trot.py`` (3 Hz): the trot earns 0.42 a step, the same legs bounding
    0.02 (at 0.1: 0.78 and 0.27)."""
    turn_in_place_envs: float = 0.2
    """PPO's and SAC's share of command resamples that ask to turn in place (``rel_turn_in_place_envs``: no linear
    velocity, a yaw rate from [-1, 1] rad/s); Isaac Lab's heading commands almost never ask for it. Without it the
    second ``make train`` run at the doubled fine weights (seed 42) failed at 699 (play seed 0: 0.33 m/s under 0.5,
    error 0.210; turning error 0.324 with 3 of 16 robots falling) and fell turning at 749 and 799 too. At 0.1
    (2026-11-28, seed 42) iteration 699 passed every walking check at play seed 0 (turning 1.03 rad/s, error 0.070); a
    second run bounded forward (error 0.183). With the trot gait reward at 0.1, a run trotted forward but let 1-7 of 16
    robots fall turning in place at every checkpoint played from 500 to 799, while turning at 0.5 rad/s or while walking
    never fell: the fast in-place turn was a tenth of training's commands. At 0.2 (2026-11-29, seed 42, one run, 48.8
    minutes to 699) no robot fell turning at either play seed and 699 passed every check: play seed 0 forward 0.49 m/s,
    error 0.108; turning 0.78 rad/s, error 0.2996 (the limit is 0.3); standing 0.06 m/s; the gate's play seed 1 forward
    error 0.099, turning 0.239; MuJoCo 0.36 m/s, error 0.147, and with friction 0.4 and 2 kg 0.42 m/s, error 0.088. A
    second run (the same day) passed every check at 699 with margin: forward error 0.082, turning 0.93 rad/s (error
    0.153), MuJoCo errors 0.035 and 0.034; its ``make train`` ended 52.8 minutes after it started (the first 52.4).
    PPO-ROA keeps 0: on earlier recipes it did not make the teacher turn in place, and its current recipe was not
    measured with it. SAC takes it with the gait reward (:class:`SacCpuProfileCfg`)."""
    symmetry_augmentation: bool = True
    """Left-right mirrored copies of every PPO minibatch (rsl_rl's symmetry extension, locolab.envs.symmetry), until
    the schedule's ``symmetry_until`` (:class:`PpoScheduleCfg`); not for recurrent actors, whose sequences rsl_rl
    does not mirror."""
    num_steps_per_env: int = 24
    """Rollout length per environment (the stock 24)."""
    learning_rate: float = 1.0e-3
    schedule: str = "adaptive"
    entropy_coef: float = 0.01
    action_noise_learning_rate: float = 3.0e-4
    noise_free_observation_envs: float = 0.25
    """PPO's share of robots that train without policy observation noise (each process's first ones,
    :class:`locolab.envs.observation_noise.PartlyUniformNoiseCfg`); the others keep the task's noise. Why: the failing
    runs' gait held only under the training's noise (with play.py's ``--observation_noise`` their mean action walked
    0.46-0.50 m/s under 0.5, without it 0.30-0.35), and what ships runs without it. With a share trained on the shipped
    closed loop, PPO pays for that loop's tracking; training logs those robots' episodes apart
    (``rollout_noise_free/``). Measured with a last noise ceiling of 0.05 (``PpoScheduleCfg.action_noise_final``; ``make
    train``, seed 42, 2026-11-30, one run of two): iteration 699, 56.1 minutes in, passed every check with the widest
    margins of any run (play seed 0: forward 0.51 m/s, error 0.061; turning 1.02 rad/s, error 0.071; standing 0.05 m/s;
    MuJoCo errors 0.088 and, with friction 0.4 and 2 kg, 0.091; the gate's play seed 1: forward error 0.057), trotting;
    the noise-free robots tracked at least as well as the others all along (lin error 0.116 against 0.123 over
    iterations 650-699). The second and fourth runs learnt slowly from their first 150 iterations and undershot at 699
    (errors 0.199 and 0.245); the third walked at 699 (gate forward error 0.067; MuJoCo 0.145): 2 of 4 at ``desired_kl``
    0.01, against 2 of 6 before."""
    num_learning_epochs: int = 5
    num_mini_batches: int = 2
    """6144-sample minibatches: with 1536 (4 per 256 x 24) the adaptive learning rate sat at 1e-5..1e-4."""
    ppo: PpoScheduleCfg = PpoScheduleCfg()
    """PPO's schedule (:class:`PpoScheduleCfg` has the measurements)."""
    roa_teacher: PpoScheduleCfg = PpoScheduleCfg(desired_kl=0.01, entropy_off=(215, 216),
                                                 action_noise_window=(215, 450), action_noise_final=0.1,
                                                 symmetry_until=650, max_iterations=700)
    """The PPO-ROA teacher's schedule (phase ``train``): PPO's before 2026-12-01 (KL target 0.01, entropy bonus off and
    noise window from 215, a last noise ceiling of 0.1, 700 iterations, the last 50 without mirroring), on which its
    recipe was measured (the student inherits the teacher's noise and finetunes at ``roa_finetune_learning_rate``);
    PPO's newer schedule, tried once, failed the teacher's turn in place (below). The teacher acts on PPO's physics and
    rewards. Measured (seed 42, fine tracking rewards): iteration 699 walked 0.49 m/s under 0.5 (error 0.041), turned
    1.08 rad/s under 1 (error 0.201) and stood (0.04 m/s); 72 minutes of wall clock with tests beside it, about 5.1 s an
    iteration alone (about 60 minutes). The 900-iteration teachers before, mirrored throughout and without the fine
    terms, did not turn in place. With the fine weights doubled (2026-11-28, one run, 8.9 s an iteration on a slower
    machine: 104 minutes): iteration 699 walked 0.44 m/s (error 0.081) and turned 1.03 rad/s (error 0.085) at play seed
    0, but one robot in 16 fell standing, and at play seed 1 six fell turning in place. Timed alone on a fast day
    (2026-11-29): 699 at 62.5 minutes, which the walking gate passed (forward error 0.095, turning 0.093, no falls); its
    student passed the gate at 299, 94.6 minutes after the teacher started. On PPO's schedule (2026-12-01, one run, seed
    42) the teacher reached 634 after 48.3 minutes and tracked as well in training (0.099 m/s, 0.125 rad/s over
    585-634), but failed turning in place at the gate: 634 with 10 of 16 robots falling, 684 with 2
    (docs/measurements/ppo_roa.md)."""
    roa_reg_lambda_window: tuple[int, int] = (200, 600)
    """Iterations over which ROA's regulariser weight ramps from 0 to its maximum, on a CPU."""
    roa_finetune_iterations: int = 300
    """PPO-ROA phase ``finetune`` (student) iterations on a CPU. Measured by resuming two 200-iteration students of
    the same teacher (seed 42) for 100 more on the same schedule, each about 6 minutes: seed 44's turning error fell
    from 0.393 (failing the 0.3 limit) to 0.267; seed 42's forward error from 0.059 to 0.056, its MuJoCo errors from
    0.039 to 0.026 and (friction 0.4, 2 kg) from 0.051 to 0.040, its turning error stayed 0.112. 200 iterations took
    17-20 minutes; with the teacher's 700 the pair takes about 95 minutes of wall clock."""
    roa_finetune_symmetry_until: int = 150
    """The student's last 150 finetuning iterations are not mirrored, like the end of the teacher's and PPO's runs."""
    roa_finetune_learning_rate: float = 3.0e-4
    """The student finetunes at this fixed learning rate: the teacher's since its action-noise window began
    (``action_noise_learning_rate``). The student inherits the teacher's narrow noise (std 0.097), and rsl_rl's
    adaptive schedule held it at 1e-5..5e-5 for all 200 iterations. Measured on the same teacher (seed 42): with the
    adaptive rate the student's iteration 199 walked 0.45 m/s under 0.5 (error 0.071) and turned with error 0.328
    (failing the 0.3 limit); with 3e-4, 0.48 m/s (error 0.059) and turning error 0.112 (the teacher: 0.49 m/s, error
    0.041; turning error 0.201)."""
    roa_finetune_dynamics_concentration: float = 0.5
    """The student finetunes on dynamics drawn with more weight near the ranges' ends (the ``dynamics`` event's
    ``sample_concentration``: Beta(0.5, 0.5), the arcsine law; the ranges stay the same). The teacher reads the
    dynamics, so a rare robot costs it little; the student must infer them from 1 s of history. Every student fall
    in stop 29's checks was one robot, which the teacher walked: payload at 0.90 and centre of mass at 0.99 of their
    [-1, 1] ranges. One draw in 4000 is at least that heavy and that front-loaded under uniform draws; one in 155
    under the arcsine law. Measured (one new teacher, seed 42, and its student, seed 43): the teacher fell with that
    robot at the forward check and 3 times in 16 with every robot carrying 2.35 kg 0.1 m forward; the student, on
    these draws, walked both without a fall (0.48 m/s, error 0.081; loaded 0.50 m/s, error 0.064) and in MuJoCo
    (error 0.057; friction 0.4 and 2 kg: 0.048). It fell once in 16 turning in place (a 1.57 kg robot, after 11.5 s;
    not with play seed 1). That teacher's student on uniform draws (seed 43, same schedule) fell 3 times in 16 with
    every robot so loaded, tracked them and MuJoCo worse (errors 0.107 and 0.112 against 0.064 and 0.057), and
    turned without a fall."""
    collection_threads: int = 1
    """Torch threads of the trainer's process while it collects (agent ``threads.collection``;
    :mod:`locolab.runners.torch_threads`). Beside a second training on the same 2 cores, one thread cut the trainer's
    own share of a rollout from 2.4 s to 0.08 s per iteration (collection 8.8 to 6.2 s): torch's second thread only
    competes with the simulation processes for the cores."""
    learning_threads: int = 0
    """Torch threads during the update (agent ``threads.learning``; 0: torch's default, one per core): the simulation
    processes wait meanwhile, so both cores are free. Measured (PPO, 512 envs, 2 free cores): updates of 0.9 s on two
    threads against 1.5 s on one. With one-thread collection the benchmark's PPO ran 3252 steps/s against 3101
    before (2.41x of stock instead of 2.31x); ROA train 2182 against 1576, ROA finetune 1964 against 1217, the GRU
    3397 against 2765."""
    evaluation_interval: int = 0
    """Periodic evaluation (agent ``evaluation.interval``) is off on a CPU: one evaluation of 8 environments x 20 s
    took 62-69 s beside a 512-env training of 5-6 s iterations, about 20 % of training time at interval 50."""
    walking_gate_extra_iterations: int = 500
    """On flat ground, PPO (and both PPO-ROA phases) train on past their planned iterations, 50 at a time, until the
    final checkpoint passes the walking checks, at most this many more (agent ``walking_gate``,
    :mod:`locolab.runners.walking_gate`); not when ``--max_iterations`` is given. The recipe's iteration 699 walked in
    2 of the 4 ``make train`` runs played there on this physics with the fine weights (1.0, 0.5), and in the one run
    at (2.0, 1.0). Measured with the gate at (1.0, 0.5) (seed 42, 2026-11-28): 699 failed forward (0.39 m/s, error
    0.200); the error fell to 0.151 at 999 and passed at 1049 (0.45 m/s, 0.149), where turning failed (error 0.462);
    1099-1199 fell back (1199: 0.38 m/s, error 0.189). 67 minutes in all, no walking checkpoint: the gate gives a run
    more chances, not a guarantee."""
    sac: SacCpuProfileCfg = SacCpuProfileCfg()
    robustness_curriculum: bool = True
    """Start from the nominal robot without pushes and widen the randomised dynamics and the pushes to the task's
    ranges as tracking improves (locolab.envs.mdp.robustness_curriculum)."""


PPO_SETTINGS = ("learning_rate", "schedule", "entropy_coef", "num_learning_epochs", "num_mini_batches")
"""PPO settings the profile sets for every PPO agent (the schedule, :class:`PpoScheduleCfg`, is per agent)."""
SAC_SETTINGS = ("batch_size", "num_updates", "buffer_size", "learning_starts", "target_entropy",
                "alpha_learning_rate", "symmetry_augmentation", "mean_penalty")


def is_sac(agent_cfg) -> bool:
    return hasattr(agent_cfg.algorithm, "n_step")


def walking_checks_apply(env_cfg) -> bool:
    """Whether the walking gate can judge this task: the walking checks are flat-ground ones."""
    return env_cfg.scene.terrain.terrain_type == "plane"


def set_physics_step(env_cfg, dt: float, decimation: int) -> None:
    """Physics step ``dt`` and ``decimation`` physics steps per policy step, with the sensors ticking every physics
    step and rendering once per policy step, as Isaac Lab's velocity configs set them."""
    env_cfg.sim.dt = dt
    env_cfg.decimation = decimation
    env_cfg.sim.render_interval = decimation
    if getattr(env_cfg.scene, "contact_forces", None) is not None:
        env_cfg.scene.contact_forces.update_period = dt
    if getattr(env_cfg.scene, "height_scanner", None) is not None:
        env_cfg.scene.height_scanner.update_period = dt * decimation


def set_physics(env_cfg, num_substeps: int, dt: float, decimation: int, integrator: str,
                solver_iterations: int) -> None:
    """Every physics setting the profile changes: substeps, physics step and decimation, integrator and solver
    iterations."""
    env_cfg.sim.physics.num_substeps = num_substeps
    solver = env_cfg.sim.physics.solver_cfg
    solver.integrator, solver.iterations = integrator, solver_iterations
    set_physics_step(env_cfg, dt, decimation)


def set_profile_physics(env_cfg, profile: CpuProfileCfg) -> None:
    """The profile's physics (:func:`set_physics`)."""
    set_physics(env_cfg, profile.num_substeps, profile.physics_dt, profile.decimation, profile.integrator,
                profile.solver_iterations)
    env_cfg.skip_absent_passive_forces = profile.skip_absent_passive_forces
    env_cfg.physics_engine = profile.physics_engine


def copy_physics(env_cfg, source_cfg) -> None:
    """``source_cfg``'s physics (:func:`set_physics`) into ``env_cfg``: an evaluation in the physics of training."""
    solver = source_cfg.sim.physics.solver_cfg
    set_physics(env_cfg, source_cfg.sim.physics.num_substeps, source_cfg.sim.dt, source_cfg.decimation,
                solver.integrator, solver.iterations)
    if hasattr(source_cfg, "physics_engine"):
        env_cfg.physics_engine = source_cfg.physics_engine


TRACKING_TERMS = ("track_lin_vel_xy_exp", "track_ang_vel_z_exp")
"""Isaac Lab's velocity-tracking rewards (linear, yaw)."""
FINE_TRACKING_TERMS = dict(zip(("track_lin_vel_xy_fine", "track_ang_vel_z_fine"), TRACKING_TERMS))
"""The fine tracking rewards and the stock terms they copy."""
TROT_GAIT_TERM = "trot_gait"
"""The gait reward :func:`add_trot_gait` adds."""
TRAINING_ONLY_REWARDS = (*FINE_TRACKING_TERMS, TROT_GAIT_TERM)
"""Reward terms the profile adds to training only: evaluation and play.py run the -Play task without them."""


def add_fine_tracking(env_cfg, weights: tuple[float, float], std: float) -> None:
    """Add the fine tracking rewards (copies of the stock tracking terms with kernel width ``std``); a zero weight
    adds none."""
    for (name, stock), weight in zip(FINE_TRACKING_TERMS.items(), weights):
        if weight:
            stock_term = getattr(env_cfg.rewards, stock)
            setattr(env_cfg.rewards, name, replace(stock_term, weight=weight, params={**stock_term.params, "std": std}))


def add_trot_gait(env_cfg, weight: float, std: float) -> None:
    """Add Isaac Lab's gait reward (from its Spot task) favouring a trot: the diagonal foot pairs of the gait metrics
    (:data:`locolab.eval.metrics.DIAGONAL_PAIRS`) move together; ``std`` scales its kernel on squared time
    differences [s^2]. A zero weight adds none."""
    if not weight:
        return
    from isaaclab.managers import RewardTermCfg, SceneEntityCfg
    from isaaclab_tasks.contrib.velocity.config.spot.mdp import GaitReward

    from locolab.envs.metrics import DIAGONAL_PAIRS, FEET

    pairs = tuple(tuple(f"{FEET[foot]}_foot" for foot in pair) for pair in DIAGONAL_PAIRS)
    setattr(env_cfg.rewards, TROT_GAIT_TERM, RewardTermCfg(func=GaitReward, weight=weight, params={
        "std": std, "max_err": 0.2, "velocity_threshold": 0.5, "synced_feet_pair_names": pairs,
        "asset_cfg": SceneEntityCfg("robot"), "sensor_cfg": SceneEntityCfg("contact_forces")}))


def effective_settings(env_cfg, agent_cfg) -> dict:
    """The profile's settings as the configs hold them now (after flags and overrides): what is printed and saved."""
    algorithm = agent_cfg.algorithm
    settings = {
        "num_envs": env_cfg.scene.num_envs,
        "torch_threads": {"collection": agent_cfg.threads.collection, "learning": agent_cfg.threads.learning},
        "num_substeps": env_cfg.sim.physics.num_substeps,
        "physics_dt": env_cfg.sim.dt,
        "decimation": env_cfg.decimation,
        "integrator": env_cfg.sim.physics.solver_cfg.integrator,
        "solver_iterations": env_cfg.sim.physics.solver_cfg.iterations,
        "skip_absent_passive_forces": getattr(env_cfg, "skip_absent_passive_forces", False),
        "physics_engine": getattr(env_cfg, "physics_engine", "mujoco_warp"),
        "tracking_reward_weights": [getattr(env_cfg.rewards, term).weight for term in TRACKING_TERMS],
        "fine_tracking_rewards": {name: [term.weight, term.params["std"]] for name in FINE_TRACKING_TERMS
                                  if (term := getattr(env_cfg.rewards, name, None)) is not None},
        "trot_gait": [term.weight, term.params["std"]]
        if (term := getattr(env_cfg.rewards, TROT_GAIT_TERM, None)) is not None else None,
        "turn_in_place_envs": env_cfg.commands.base_velocity.rel_turn_in_place_envs,
        "noise_free_observation_envs": noise_free_share(env_cfg),
        "push_robot": env_cfg.events.push_robot is not None,
        "robustness_curriculum": getattr(env_cfg.curriculum, "robustness", None) is not None,
        "dynamics_sample_concentration": dynamics.params["ranges"].sample_concentration
        if (dynamics := getattr(env_cfg.events, "dynamics", None)) is not None else None,
        "num_steps_per_env": agent_cfg.num_steps_per_env,
        "max_iterations": agent_cfg.max_iterations,
        "evaluation_interval": getattr(getattr(agent_cfg, "evaluation", None), "interval", 0),
    }
    schedule = getattr(agent_cfg, "entropy_schedule", None)
    if schedule is not None and schedule.end > schedule.start:
        settings["entropy_schedule"] = [schedule.start, schedule.end, schedule.final]
    gate = getattr(agent_cfg, "walking_gate", None)
    if gate is not None and gate.extra_iterations > 0:
        settings["walking_gate"] = gate.to_dict()
    if is_sac(agent_cfg):
        settings.update({name: getattr(algorithm, name) for name in SAC_SETTINGS}, collector=agent_cfg.collector,
                        critic_layer_norm=agent_cfg.critic.layer_norm)
        return settings
    settings.update({name: getattr(algorithm, name) for name in (*PPO_SETTINGS, "desired_kl")})
    settings["update_precision"] = agent_cfg.update_precision
    noise = getattr(agent_cfg, "action_noise_schedule", None)
    if noise is not None and noise.end > noise.start:
        settings["action_noise_schedule"] = noise.to_dict()
    settings["symmetry_augmentation"] = getattr(algorithm, "symmetry_cfg", None) is not None
    if settings["symmetry_augmentation"]:
        settings["symmetry_until"] = getattr(agent_cfg, "symmetry_until", 0)
    if hasattr(algorithm, "reg_lambda_window"):
        settings["reg_lambda_window"] = list(algorithm.reg_lambda_window)
    return settings


def apply_cpu_profile(env_cfg, agent_cfg, profile: CpuProfileCfg, num_envs_given: bool = False,
                      max_iterations_given: bool = False) -> None:
    """Apply ``profile`` to a task's env and agent configs, in place.

    ``num_envs_given`` / ``max_iterations_given``: the caller set these explicitly (``--num_envs``,
    ``--max_iterations``), so the profile leaves them alone.
    """
    if not num_envs_given:
        env_cfg.scene.num_envs = profile.num_envs
    set_profile_physics(env_cfg, profile)
    for term in TRACKING_TERMS:
        getattr(env_cfg.rewards, term).weight *= profile.tracking_reward_scale
    add_fine_tracking(env_cfg, profile.fine_tracking_weights, profile.fine_tracking_std)
    if profile.robustness_curriculum:
        from locolab.envs.mdp import robustness_curriculum_cfg

        env_cfg.curriculum.robustness = robustness_curriculum_cfg()
    if hasattr(agent_cfg, "evaluation"):
        agent_cfg.evaluation.interval = profile.evaluation_interval
    agent_cfg.threads.collection = profile.collection_threads
    agent_cfg.threads.learning = profile.learning_threads
    is_roa = hasattr(agent_cfg.algorithm, "reg_lambda_window")
    if not is_roa:
        env_cfg.commands.base_velocity.rel_turn_in_place_envs = profile.turn_in_place_envs
        add_trot_gait(env_cfg, profile.trot_gait_weight, profile.trot_gait_std)
    if is_sac(agent_cfg):
        agent_cfg.num_steps_per_env = profile.sac.num_steps_per_env
        for name in SAC_SETTINGS:
            setattr(agent_cfg.algorithm, name, getattr(profile.sac, name))
        agent_cfg.actor.hidden_dims = list(profile.sac.actor_hidden_dims)
        agent_cfg.critic.hidden_dims = list(profile.sac.critic_hidden_dims)
        agent_cfg.critic.layer_norm = profile.sac.critic_layer_norm
        schedule = agent_cfg.entropy_schedule
        schedule.start, schedule.end, schedule.final = profile.sac.entropy_schedule
        if not max_iterations_given:
            agent_cfg.max_iterations = profile.sac.max_iterations
            if walking_checks_apply(env_cfg):
                agent_cfg.walking_gate.extra_iterations = profile.sac.walking_gate_extra_iterations
                agent_cfg.walking_gate.chunk = profile.sac.walking_gate_chunk
        return
    if not is_roa:
        set_noise_free_envs(env_cfg, profile.noise_free_observation_envs)
    if profile.symmetry_augmentation and agent_cfg.actor.class_name != "RNNModel":  # rsl_rl: not for recurrent
        from isaaclab_rl.rsl_rl import RslRlSymmetryCfg

        from locolab.envs.symmetry import compute_symmetric_states

        agent_cfg.algorithm.symmetry_cfg = RslRlSymmetryCfg(use_data_augmentation=True,
                                                            data_augmentation_func=compute_symmetric_states)
    agent_cfg.num_steps_per_env = profile.num_steps_per_env
    algorithm = agent_cfg.algorithm
    for name in PPO_SETTINGS:
        setattr(algorithm, name, getattr(profile, name))
    schedule = profile.roa_teacher if is_roa else profile.ppo
    algorithm.desired_kl = schedule.desired_kl
    finetune = is_roa and algorithm.phase == "finetune"
    if is_roa:
        algorithm.reg_lambda_window = profile.roa_reg_lambda_window
    if finetune:
        env_cfg.events.dynamics.params["ranges"].sample_concentration = profile.roa_finetune_dynamics_concentration
        algorithm.entropy_coef = 0.0
        algorithm.schedule, algorithm.learning_rate = "fixed", profile.roa_finetune_learning_rate
    else:
        agent_cfg.entropy_schedule.start, agent_cfg.entropy_schedule.end = schedule.entropy_off
        agent_cfg.entropy_schedule.final = 0.0
        noise = agent_cfg.action_noise_schedule
        noise.start, noise.end = schedule.action_noise_window
        noise.final = schedule.action_noise_final
        noise.learning_rate = profile.action_noise_learning_rate
    agent_cfg.symmetry_until = profile.roa_finetune_symmetry_until if finetune else schedule.symmetry_until
    if not max_iterations_given:
        if walking_checks_apply(env_cfg):
            agent_cfg.walking_gate.extra_iterations = profile.walking_gate_extra_iterations
        agent_cfg.max_iterations = profile.roa_finetune_iterations if finetune else schedule.max_iterations
