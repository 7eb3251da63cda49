"""Every MuJoCo C world's contacts and constraint forces gathered into MuJoCo-Warp's contact arrays, which Newton
converts into its own contacts (:class:`locolab.envs.mujoco_c.SolverMuJoCoC`).

Why not field by field: ``MjData.contact`` builds a new view object, and each of its seven fields a new array, on
every access; at 256 worlds that Python work took 5.9 ms of a 61 ms environment step. MuJoCo keeps a world's
contacts as ``mjContact`` records at the start of its data's arena, an address fixed for the data's lifetime. A
numpy view of those records, built once per world, lets each world's contacts be copied whole; the fields are
split out afterwards, once for all worlds.
"""

from __future__ import annotations

import ctypes

import mujoco
import numpy as np

FIELDS = ("pos", "frame", "friction", "dist", "dim", "geom", "efc_address")
"""``mjContact`` fields Newton's conversion reads."""
POSES = ("xpos", "xquat")
"""Body poses, which put contact points in the bodies' frames."""


def contact_record_dtype(found) -> np.dtype:
    """The numpy record type of MuJoCo's ``mjContact`` fields in :data:`FIELDS`, read off the field views of a
    non-empty ``MjData.contact``."""
    base = found.dist.ctypes.data
    views = {name: getattr(found, name) for name in FIELDS}
    return np.dtype({"names": list(FIELDS), "formats": [(view.dtype, view.shape[1:]) for view in views.values()],
                     "offsets": [view.ctypes.data - base for view in views.values()],
                     "itemsize": found.dist.strides[0]})


class ContactGather:
    """Copies the contacts of ``world_data`` (one ``MjData`` per world) into ``mjw_data``'s contact arrays."""

    def __init__(self, world_models: list[mujoco.MjModel], world_data: list[mujoco.MjData], mjw_data):
        self.world_data, self.mjw_data = world_data, mjw_data
        self.capacity = [model.narena for model in world_models]  # bytes: records never extend past the arena
        self.records: list[np.ndarray | None] = [None] * len(world_data)
        self.addresses: list[int | None] = [None] * len(world_data)
        self.dtype: np.dtype | None = None
        self.poses = [tuple(getattr(data, name) for name in POSES) for data in world_data]
        contact = mjw_data.contact
        # each field as rows of the gathered contacts (frames 3x3 flattened; efc_address: MuJoCo C fills column 0)
        self.columns = {name: (lambda values: values.reshape(len(values), -1))(getattr(contact, name).numpy())
                        for name in FIELDS}
        self.world_ids = contact.worldid.numpy()
        self.efc_force = mjw_data.efc.force.numpy()
        self.pose_arrays = [getattr(mjw_data, name).numpy() for name in POSES]
        self.gathered = None

    def _records(self, world: int, data: mujoco.MjData) -> np.ndarray:
        """World ``world``'s record view, built on its first contact; a moved contact array (a MuJoCo whose arena
        keeps contacts elsewhere) is caught here and refused rather than read from stale memory."""
        found = data.contact
        address = found.dist.ctypes.data
        if self.records[world] is None:
            self.dtype = self.dtype or contact_record_dtype(found)
            count = self.capacity[world] // self.dtype.itemsize
            buffer = (ctypes.c_char * (count * self.dtype.itemsize)).from_address(address)
            self.records[world], self.addresses[world] = np.frombuffer(buffer, self.dtype), address
            if self.gathered is None:
                self.gathered = np.empty(self.mjw_data.naconmax, self.dtype)
        elif address != self.addresses[world]:
            raise RuntimeError("MuJoCo moved a world's contact array: locolab.envs.mujoco_c_contacts assumes it "
                               "stays at the start of the data's arena (MuJoCo 3.x); pin the MuJoCo version.")
        return self.records[world]

    def gather(self) -> int:
        """Copy every world's contacts, constraint forces and body poses; returns the number of contacts."""
        efc_force, (xpos, xquat) = self.efc_force, self.pose_arrays
        start = 0
        for world, data in enumerate(self.world_data):
            world_xpos, world_xquat = self.poses[world]
            xpos[world] = world_xpos
            xquat[world] = world_xquat
            count = data.ncon
            if not count:
                continue
            end = start + count
            if end > self.mjw_data.naconmax or data.nefc > efc_force.shape[1]:
                raise RuntimeError(f"MuJoCo C's world {world} overflows MuJoCo-Warp's contact buffers ({end} contacts "
                                   f"of {self.mjw_data.naconmax}, {data.nefc} constraint rows of "
                                   f"{efc_force.shape[1]}): "
                                   "raise env.sim.physics.solver_cfg.nconmax or njmax.")
            records = self.records[world]
            if records is None or world == 0:  # world 0 checks the address on every call
                records = self._records(world, data)
            self.gathered[start:end] = records[:count]
            self.world_ids[start:end] = world
            efc_force[world, :data.nefc] = data.efc_force
            start = end
        if start:
            gathered = self.gathered[:start]
            for name, column in self.columns.items():
                values = gathered[name].reshape(start, -1)
                column[:start, :values.shape[1]] = values
        return start
